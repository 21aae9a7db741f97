// What an operator alerts on, read from the database when /metrics is scraped (http/plugins/
// metrics.ts). Every query runs on an index whose size follows what it counts, never the outbox's
// history: the pending messages (messages_due), the exhausted ones (messages_exhausted) and the
// attempts of the last minutes (message_attempts_started, migration 025).
import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DB } from './schema.js';

/** Where a pending message stands: claimed by a worker now, due and waiting for one, or due later (a retry). */
export type BacklogState = 'in_flight' | 'due' | 'scheduled';
export const BACKLOG_STATES: readonly BacklogState[] = ['in_flight', 'due', 'scheduled'];

export interface OutboxGauges {
  backlog: { kind: string; state: BacklogState; count: number }[];
  /** Developer-clock milliseconds: when the longest-waiting pending message fell due; null when none is due. */
  oldestDueAt: number | null;
  exhausted: { kind: string; count: number }[];
  /** Attempts started since `attemptsSince`, by outcome (delivered, failed). */
  attempts: { outcome: string; count: number }[];
}

export interface GaugeTimes {
  /** Developer-clock milliseconds: what is due is due by then. */
  now: number;
  /** Wall-clock milliseconds: a lease that ends after this is held. */
  wallNow: number;
  attemptsSince: number;
}

// Literals, not parameters: a partial index serves only the queries whose condition the planner can
// match to the index's own.
const PENDING = sql<SqlBool>`status = 'pending'`;
const EXHAUSTED = sql<SqlBool>`status = 'exhausted'`;

/** One query after the other: a scrape takes one pooled connection at a time, never several. */
export async function readOutboxGauges(db: Kysely<DB>, times: GaugeTimes): Promise<OutboxGauges> {
  const backlog = await db
    .selectFrom('messages')
    .select((eb) => [
      'kind',
      eb
        .case()
        .when('locked_until', '>=', times.wallNow)
        .then('in_flight')
        .when('next_attempt_at', '<=', times.now)
        .then('due')
        .else('scheduled')
        .end()
        .as('state'),
      eb.fn.countAll<number>().as('count'),
    ])
    .where(PENDING)
    .groupBy(['kind', sql.ref('state')])
    .execute();
  const oldest = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where(PENDING)
    .where('next_attempt_at', '<=', times.now)
    .executeTakeFirst();
  const exhausted = await db
    .selectFrom('messages')
    .select((eb) => ['kind', eb.fn.countAll<number>().as('count')])
    .where(EXHAUSTED)
    .groupBy('kind')
    .execute();
  const attempts = await db
    .selectFrom('message_attempts')
    .select((eb) => ['outcome', eb.fn.countAll<number>().as('count')])
    .where('started_at', '>=', times.attemptsSince)
    .groupBy('outcome')
    .execute();
  return {
    backlog: backlog.map((row) => ({ kind: row.kind, state: row.state as BacklogState, count: Number(row.count) })),
    oldestDueAt: oldest?.at == null ? null : Number(oldest.at),
    exhausted: exhausted.map((row) => ({ kind: row.kind, count: Number(row.count) })),
    attempts: attempts.map((row) => ({ outcome: row.outcome, count: Number(row.count) })),
  };
}
