// How long a dashboard session lasts, and how many wrong passwords are tolerated. Both are measured
// on the wall clock: a developer who moves the developer clock two days ahead from the dashboard
// must not be signed out by it, and must not age the failures of an attacker either.

/** A session unused this long ends. */
export const SESSION_IDLE_MS = 2 * 3600_000;
/** A session ends this long after sign-in, however busy. */
export const SESSION_ABSOLUTE_MS = 12 * 3600_000;
/** last_seen_at is written at most this often, not on every page. */
export const SESSION_TOUCH_MS = 60_000;

export interface SessionTimes {
  createdAt: number;
  lastSeenAt: number;
}

export function sessionAlive(session: SessionTimes, nowMs: number): boolean {
  return nowMs - session.lastSeenAt < SESSION_IDLE_MS && nowMs - session.createdAt < SESSION_ABSOLUTE_MS;
}

/**
 * Failed sign-ins counted over a sliding window: per email, against guessing one user's password;
 * per client address, against trying one password on many emails. Past either limit, every
 * sign-in of that email or from that address is refused, right password or not, until the oldest
 * failure in the window ages out. A successful sign-in clears its email's failures.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_LIMITS = { email: 5, address: 20 } as const;

export type SignInSubject = `email:${string}` | `address:${string}`;

export function signInBlocked(failures: { email: number; address: number }): boolean {
  return failures.email >= SIGN_IN_LIMITS.email || failures.address >= SIGN_IN_LIMITS.address;
}
