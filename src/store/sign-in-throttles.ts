// The sign-in throttle's rows (domain/sign-in-throttle.ts): one per subject, read locked so that an
// attempt is counted before its password is hashed, by exactly one request at a time.
import type { Kysely } from 'kysely';
import type { ThrottleState } from '../domain/sign-in-throttle.js';
import { dialectOf } from './database.js';
import type { DB } from './schema.js';

/**
 * Inside a transaction: the subjects' states, locked until it ends (absent ones as undefined).
 * Rows are created first and locked in key order, so that two attempts sharing subjects wait for
 * each other instead of deadlocking or both reading "no failures".
 */
export async function lockThrottles(trx: Kysely<DB>, subjects: readonly string[]): Promise<Map<string, ThrottleState>> {
  const keys = [...subjects].sort();
  await trx
    .insertInto('sign_in_throttles')
    .values(keys.map((subject) => ({ subject, failures: 0, last_failure_at: 0, blocked_until: 0 })))
    .onConflict((oc) => oc.column('subject').doNothing())
    .execute();
  const rows = await trx
    .selectFrom('sign_in_throttles')
    .selectAll()
    .where('subject', 'in', keys)
    .orderBy('subject')
    // SQLite transactions already hold the database's write lock (BEGIN IMMEDIATE).
    .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate())
    .execute();
  return new Map(rows.filter((row) => Number(row.failures) > 0).map((row) => [row.subject, stateOf(row)]));
}

const stateOf = (row: { failures: number; last_failure_at: number; blocked_until: number }): ThrottleState => ({
  failures: Number(row.failures),
  lastFailureAt: Number(row.last_failure_at),
  blockedUntil: Number(row.blocked_until),
});

/** A subject's state as it stands, unlocked. */
export async function readThrottle(db: Kysely<DB>, subject: string): Promise<ThrottleState | undefined> {
  const row = await db.selectFrom('sign_in_throttles').selectAll().where('subject', '=', subject).executeTakeFirst();
  return row === undefined || Number(row.failures) === 0 ? undefined : stateOf(row);
}

export async function writeThrottle(db: Kysely<DB>, subject: string, state: ThrottleState): Promise<void> {
  await db
    .updateTable('sign_in_throttles')
    .set({ failures: state.failures, last_failure_at: state.lastFailureAt, blocked_until: state.blockedUntil })
    .where('subject', '=', subject)
    .execute();
}

export async function deleteThrottle(db: Kysely<DB>, subject: string): Promise<void> {
  await db.deleteFrom('sign_in_throttles').where('subject', '=', subject).execute();
}

/** Subjects whose last failure is older than `before` and that hold nothing back: forgotten. */
export async function pruneThrottles(db: Kysely<DB>, before: number, now: number): Promise<void> {
  await db.deleteFrom('sign_in_throttles').where('last_failure_at', '<', before).where('blocked_until', '<=', now).execute();
}
