// How long the outbox keeps what it sent. The contract promises a message can be sent again
// (resend) for RESEND_WINDOW_DAYS after its latest change (created, attempted, resent); an
// installation keeps a finished message (delivered, exhausted or cancelled) and its attempt log
// for its retention after that change, never less than that window, then prunes it. Payments and
// the other records of money are never pruned by it.

const DAY_MS = 86_400_000;

/** How long after its latest change a message can still be resent: the contract's promise. */
export const RESEND_WINDOW_DAYS = 90;

/** Twice the window: a merchant who finds a missed notification late still finds it, with room for the audits of a half-year. */
export const DEFAULT_MESSAGE_RETENTION_DAYS = 180;

/** Ten years: longer than any operator's obligation to keep what was sent. */
export const MAX_MESSAGE_RETENTION_DAYS = 3650;

/** Why a retention is refused, or undefined when it keeps every message the contract promises to resend. */
export function retentionProblem(days: number): string | undefined {
  if (days < RESEND_WINDOW_DAYS)
    return `must be at least ${RESEND_WINDOW_DAYS} days, the window in which a message can be resent (docs/notifications.md), got ${days}`;
  if (days > MAX_MESSAGE_RETENTION_DAYS) return `must be at most ${MAX_MESSAGE_RETENTION_DAYS} days, got ${days}`;
  return undefined;
}

/** Finished messages whose latest change is before this instant (installation clock) are pruned. */
export function retentionCutoff(nowMs: number, retentionDays: number): number {
  return nowMs - retentionDays * DAY_MS;
}
