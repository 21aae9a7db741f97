// How long a dashboard session lasts, measured on the wall clock: a developer who moves the
// developer clock two days ahead from the dashboard must not be signed out by it. How wrong
// passwords are slowed is domain/sign-in-throttle.ts.

// NIST SP 800-63B (AAL2) allows 12 hours absolute and 30 minutes idle; Quipu keeps 12 hours and
// allows 2 hours idle, because the dashboard is read in between work done elsewhere (a refund checked
// against a bank statement) and AAL2's shorter idle limit is met instead by the second factor
// (required with SANDBOX=false) and by asking the password again before a session is ended or the
// password changed (docs/dashboard.md).

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

/** A password Quipu generated (quipu users add, reset-password, merchants create) signs in this long, and only to be replaced. */
export const INITIAL_PASSWORD_MS = 7 * 24 * 3600_000;

/** What is kept of a browser's User-Agent, to tell sessions apart on the sessions page. */
export const MAX_USER_AGENT = 200;

/** Whether a generated password no longer signs in. */
export const passwordExpired = (expiresAt: number | null, nowMs: number) => expiresAt !== null && nowMs >= expiresAt;
