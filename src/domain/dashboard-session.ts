// How long a dashboard session lasts, measured on the wall clock: a developer who moves the
// developer clock two days ahead from the dashboard must not be signed out by it. How wrong
// passwords are slowed is domain/sign-in-throttle.ts.

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
