// When a notification is tried again. The contract says "retried for up to two days while no
// HTTP 200 is returned"; the steps follow the webhook senders users trust (Svix, Standard
// Webhooks), stretched to fill two days: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 16 h.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Wait after the 1st, 2nd, ... failed attempt of a round (the first attempt is immediate). */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 16 * HOUR];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Every attempt of a round falls due within this much of the round's beginning. */
export const DELIVERY_WINDOW_MS = 48 * HOUR;
const MAX_DELAY_MS = Math.max(...RETRY_DELAYS_MS);
/**
 * Each wait is shortened by up to this fraction, so receivers that failed together are not all
 * retried in the same instant. Only shortened: the whole schedule (≈ 47.6 h) then always fits in
 * the window and a round always gets its nine attempts.
 */
export const JITTER = 0.1;

export interface FailedAttempt {
  /** Attempts made in this round, the failed one included. */
  attemptsInRound: number;
  roundStartedAt: number;
  /** When the failed attempt was due. */
  dueAt: number;
  /** When the failed attempt was recorded. */
  now: number;
  /** A uniform random number in [0, 1). */
  random: number;
  /** The receiver's Retry-After, in milliseconds, if it sent one. */
  retryAfterMs?: number;
}

/**
 * The instant the next attempt is due, or null when the round is over (nine attempts, or the
 * failed one was due at the window's end). The schedule is a timetable counted from due time to
 * due time, not from when an attempt happened to be made: an attempt made late (a busy worker, a
 * worker that was stopped, the developer clock moved forward) does not push the later ones back,
 * so when the clock jumps past several due times the missed attempts are made one after another
 * and the round ends where its two days end. A Retry-After can only make the wait longer (counted
 * from now), never beyond the schedule's longest step nor past the window.
 */
export function nextAttemptAt(failed: FailedAttempt): number | null {
  const deadline = failed.roundStartedAt + DELIVERY_WINDOW_MS;
  if (failed.attemptsInRound >= MAX_ATTEMPTS || failed.dueAt >= deadline) return null;
  const step = RETRY_DELAYS_MS[failed.attemptsInRound - 1]!;
  let next = failed.dueAt + Math.round(step * (1 - JITTER * failed.random));
  if (failed.retryAfterMs !== undefined) next = Math.max(next, failed.now + Math.min(failed.retryAfterMs, MAX_DELAY_MS));
  return Math.min(next, deadline);
}

/** A Retry-After header (delay-seconds or an HTTP-date) as milliseconds from `wallNow`. */
export function parseRetryAfter(value: string | undefined, wallNow: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - wallNow);
}
