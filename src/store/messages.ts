// The outbox's rows (messages of every kind) and their attempts. Claims and results are written in
// batches: one statement claims many due rows, one transaction records many attempts.
import type { ScanTime } from '../domain/scan-time.js';
import { accountNow, onAccountClock } from './account-time.js';
import { type Insertable, type Kysely, type SqlBool, sql } from 'kysely';
import { dialectOf } from './database.js';
import { inChunks } from './group-commit.js';
import { preparedInsert } from './prepared.js';
import type { DB, MessageAttemptRow, MessageAttemptsTable, MessageRow } from './schema.js';
import { inTransaction } from './transaction.js';

/**
 * Where a message's delivery stands. `cancelled`: withdrawn unsent, a message with a validity
 * (valid_until) whose time passed, or whose cause went away (withdrawMessages).
 */
export const MESSAGE_STATUSES = ['pending', 'delivered', 'exhausted', 'cancelled'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
/** Payment notifications are never withdrawn: they are only ever in these. */
export const NOTIFICATION_STATUSES: readonly MessageStatus[] = ['pending', 'delivered', 'exhausted'];
const CANCELLED: MessageStatus = 'cancelled';

export type NewAttemptRow = Insertable<MessageAttemptsTable>;

// A literal, not a parameter: the partial index `messages_due` only serves queries whose
// condition the planner can match to the index's own.
const PENDING = sql<SqlBool>`status = 'pending'`;

// Written in every reconciliation's transaction: compiled once (prepared.ts).
const insertRow = preparedInsert<MessageRow>('messages');

/** An account's messages of `kind` written since `since` (developer clock), all and to `url` only. */
export async function countRecentMessages(
  db: Kysely<DB>,
  receiverId: number,
  kind: string,
  since: number,
  url: string,
): Promise<{ all: number; toUrl: number }> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => [eb.fn.countAll<number>().as('all'), eb.fn.sum<number>(eb.case().when('url', '=', url).then(1).else(0).end()).as('to_url')])
    .where('receiver_id', '=', receiverId)
    .where('created_at', '>=', since)
    .where('kind', '=', kind)
    .executeTakeFirstOrThrow();
  return { all: Number(row.all), toUrl: Number(row.to_url ?? 0) };
}

export async function insertMessage(db: Kysely<DB>, row: MessageRow): Promise<void> {
  await insertRow.run(db, row);
}

export async function insertMessages(db: Kysely<DB>, rows: readonly MessageRow[]): Promise<void> {
  for (const chunk of inChunks(rows)) await db.insertInto('messages').values(chunk).execute();
}

export interface Claim {
  /** Rows due at or before this instant on their account's clock are claimed. */
  time: ScanTime;
  /** Wall-clock milliseconds: leases that ended before this are free. */
  wallNow: number;
  leaseId: string;
  leaseUntil: number;
  limit: number;
  /** Destinations the worker has no room for: their rows stay for later, or for another worker. */
  skipDestinations: readonly string[];
}

/**
 * Leases up to `limit` due rows to one worker in one statement. On PostgreSQL the candidate rows
 * are locked with SKIP LOCKED, so concurrent workers claim disjoint sets without waiting on each
 * other; on SQLite the statement runs under the database's single write lock, which serialises
 * claims the same way. The lease (locked_until) keeps the rows from other workers until the
 * attempt is recorded, and frees them if this worker dies first. Rows of skipped destinations are
 * passed over, not locked, so a backlog to one receiver never hides the other receivers' rows.
 */
export async function claimDueMessages(db: Kysely<DB>, claim: Claim): Promise<MessageRow[]> {
  const due = db
    .selectFrom('messages')
    .select('message_id')
    .where(PENDING)
    .where(onAccountClock('messages', 'next_attempt_at', '<=', claim.time))
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', claim.wallNow)]))
    .$if(claim.skipDestinations.length > 0, (q) => q.where('destination', 'not in', claim.skipDestinations))
    .orderBy('next_attempt_at')
    .limit(claim.limit)
    .$if(dialectOf(db) === 'postgres', (q) => q.forUpdate().skipLocked());
  return db.updateTable('messages').set({ lease_id: claim.leaseId, locked_until: claim.leaseUntil }).where('message_id', 'in', due).returningAll().execute();
}

export interface FinishedAttempt {
  /** The attempt as logged; it is numbered when recorded. */
  attempt: Omit<NewAttemptRow, 'number'>;
  leaseId: string;
  /** For a failed attempt: when to try again, or null when the round is over. */
  nextAttemptAt: number | null;
}

export interface RecordedAttempt {
  number: number;
  /** The attempt moved its message on: the worker still held the lease. */
  applied: boolean;
}

const CHUNK = 500;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Records finished attempts (at most one per message) in one transaction. Every attempt is
 * logged, numbered from its message's own counter, which the same statement increments: the
 * row lock (PostgreSQL) or the single writer (SQLite) then keeps numbers from repeating, whichever
 * worker records. An attempt moves its message on (delivered, next attempt, exhausted) only
 * if the lease is still this worker's; if it ended and another worker took the row, the attempt
 * is logged all the same, because it happened, and the message is left to that worker.
 */
export async function recordAttempts(db: Kysely<DB>, finished: FinishedAttempt[], time: ScanTime): Promise<Map<string, RecordedAttempt>> {
  // Each message is dated on its account's clock.
  const now = accountNow(time, 'messages');
  return inTransaction(db, async (trx) => {
    const recorded = new Map<string, RecordedAttempt>();
    const moveOn = { attempts: sql<number>`attempts + 1`, round_step: sql<number>`round_step + 1`, lease_id: null, locked_until: null, updated_at: now };
    // Lease ids are unique per claim, so "one of this batch's leases" is "still this worker's lease".
    for (const part of chunks(finished.filter((f) => f.attempt.outcome === 'delivered'))) {
      const rows = await trx
        .updateTable('messages')
        .set({ ...moveOn, status: 'delivered', delivered_at: now, next_attempt_at: null })
        .where(
          'message_id',
          'in',
          part.map((f) => f.attempt.message_id),
        )
        .where('lease_id', 'in', [...new Set(part.map((f) => f.leaseId))])
        .returning(['message_id', 'attempts'])
        .execute();
      for (const row of rows) recorded.set(row.message_id, { number: row.attempts, applied: true });
    }
    for (const f of finished) {
      if (f.attempt.outcome === 'delivered') continue;
      const row = await trx
        .updateTable('messages')
        .set({ ...moveOn, status: f.nextAttemptAt === null ? 'exhausted' : 'pending', next_attempt_at: f.nextAttemptAt })
        .where('message_id', '=', f.attempt.message_id)
        .where('lease_id', '=', f.leaseId)
        .returning('attempts')
        .executeTakeFirst();
      if (row) recorded.set(f.attempt.message_id, { number: row.attempts, applied: true });
    }
    for (const f of finished) {
      if (recorded.has(f.attempt.message_id)) continue;
      const row = await trx
        .updateTable('messages')
        .set({ attempts: sql<number>`attempts + 1`, updated_at: now })
        .where('message_id', '=', f.attempt.message_id)
        .returning('attempts')
        .executeTakeFirst();
      if (row) recorded.set(f.attempt.message_id, { number: row.attempts, applied: false });
    }
    const rows = finished.flatMap((f) => {
      const r = recorded.get(f.attempt.message_id);
      return r ? [{ ...f.attempt, number: r.number }] : [];
    });
    for (const part of chunks(rows)) await trx.insertInto('message_attempts').values(part).execute();
    return recorded;
  });
}

/**
 * Logs an attempt that leaves its message where it stands (one sent to another URL): numbered from
 * the message's counter like every other, which is all of the message it changes.
 */
export async function logAttemptAside(db: Kysely<DB>, attempt: Omit<NewAttemptRow, 'number'>, now: number): Promise<MessageAttemptRow> {
  return inTransaction(db, async (trx) => {
    const { attempts } = await trx
      .updateTable('messages')
      .set({ attempts: sql<number>`attempts + 1`, updated_at: now })
      .where('message_id', '=', attempt.message_id)
      .returning('attempts')
      .executeTakeFirstOrThrow();
    return trx
      .insertInto('message_attempts')
      .values({ ...attempt, number: attempts })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** Leases a message just written to the process that sends it at once, so no worker takes it meanwhile. */
export async function leaseMessage(db: Kysely<DB>, messageId: string, leaseId: string, leaseUntil: number): Promise<void> {
  await db.updateTable('messages').set({ lease_id: leaseId, locked_until: leaseUntil }).where('message_id', '=', messageId).execute();
}

const withdrawn = (now: number) => ({ status: CANCELLED, next_attempt_at: null, lease_id: null, locked_until: null, updated_at: now });

/**
 * Withdraws the pending messages of `kinds` about `subjectId`: they are never sent. One claimed by a
 * worker loses its lease, so the attempt it may have in flight cannot put it back in the schedule.
 */
export async function withdrawMessages(db: Kysely<DB>, subjectIds: readonly string[], kinds: readonly string[], now: number): Promise<void> {
  for (const part of chunks([...subjectIds])) {
    await db.updateTable('messages').set(withdrawn(now)).where('subject_id', 'in', part).where('kind', 'in', kinds).where(PENDING).execute();
  }
}

/**
 * Right before an attempt of a message that has a validity: true when it is still this lease's to
 * send. One withdrawn since it was claimed, or taken over, is not; one whose validity has passed
 * is withdrawn now instead.
 */
export async function stillToSend(db: Kysely<DB>, messageId: string, leaseId: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('messages')
    .select('valid_until')
    .where('message_id', '=', messageId)
    .where('lease_id', '=', leaseId)
    .where(PENDING)
    .executeTakeFirst();
  if (!row) return false;
  if (row.valid_until === null || now < row.valid_until) return true;
  await db.updateTable('messages').set(withdrawn(now)).where('message_id', '=', messageId).where('lease_id', '=', leaseId).execute();
  return false;
}

/** Gives claimed rows back (to be claimed again now) if their leases are still these. */
export async function releaseClaims(db: Kysely<DB>, messageIds: string[], leaseIds: string[]): Promise<void> {
  for (const part of chunks(messageIds)) {
    await db.updateTable('messages').set({ lease_id: null, locked_until: null }).where('message_id', 'in', part).where('lease_id', 'in', leaseIds).execute();
  }
}

export interface MessageFilter {
  receiverId?: number;
  /** Any of these kinds. */
  kinds?: readonly string[];
  subjectId?: string;
  status?: MessageStatus;
  /** Only messages older than this one (created_at, then message_id): the previous page's last. */
  before?: { createdAt: number; messageId: string };
  limit: number;
  offset?: number;
}

/** Newest first. */
export async function listMessageRows(db: Kysely<DB>, filter: MessageFilter): Promise<MessageRow[]> {
  const { before } = filter;
  return db
    .selectFrom('messages')
    .selectAll()
    .$if(filter.receiverId !== undefined, (q) => q.where('receiver_id', '=', filter.receiverId!))
    .$if(filter.kinds !== undefined, (q) => q.where('kind', 'in', filter.kinds!))
    .$if(filter.subjectId !== undefined, (q) => q.where('subject_id', '=', filter.subjectId!))
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(before !== undefined, (q) =>
      q.where((eb) =>
        eb.or([eb('created_at', '<', before!.createdAt), eb.and([eb('created_at', '=', before!.createdAt), eb('message_id', '<', before!.messageId)])]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('message_id', 'desc')
    .limit(filter.limit)
    .$if(filter.offset !== undefined, (q) => q.offset(filter.offset!))
    .execute();
}

/** One message; with `receiverId`, only that account's; with `kinds`, only of those kinds. */
export async function findMessageRow(db: Kysely<DB>, messageId: string, receiverId?: number, kinds?: readonly string[]): Promise<MessageRow | undefined> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('message_id', '=', messageId)
    .$if(receiverId !== undefined, (q) => q.where('receiver_id', '=', receiverId!))
    .$if(kinds !== undefined, (q) => q.where('kind', 'in', kinds!))
    .executeTakeFirst();
}

export async function listAttemptRows(db: Kysely<DB>, messageId: string): Promise<MessageAttemptRow[]> {
  return db.selectFrom('message_attempts').selectAll().where('message_id', '=', messageId).orderBy('attempt_id').execute();
}

/** The messages created at or after `since` (of `receiverId` and `kinds`, when given): ids and creation times only. */
export async function listMessageStamps(
  db: Kysely<DB>,
  since: number,
  filter: { receiverId?: number; kinds?: readonly string[] },
): Promise<{ message_id: string; created_at: number }[]> {
  return db
    .selectFrom('messages')
    .select(['message_id', 'created_at'])
    .where('created_at', '>=', since)
    .$if(filter.receiverId !== undefined, (q) => q.where('receiver_id', '=', filter.receiverId!))
    .$if(filter.kinds !== undefined, (q) => q.where('kind', 'in', filter.kinds!))
    .execute();
}

export async function findMessageRows(db: Kysely<DB>, messageIds: readonly string[]): Promise<MessageRow[]> {
  const rows: MessageRow[] = [];
  for (const part of chunks([...messageIds])) rows.push(...(await db.selectFrom('messages').selectAll().where('message_id', 'in', part).execute()));
  return rows;
}

/** An attempt with what its message is. */
export type AttemptOfMessage = MessageAttemptRow & Pick<MessageRow, 'kind' | 'subject_type' | 'subject_id' | 'url'>;

export async function lastAttemptId(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('message_attempts')
    .select((eb) => eb.fn.max('attempt_id').as('last'))
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/** In id order, at most `limit`: the attempts logged after `afterId`, and those of `ids` (ids passed over before, which may have been logged late). */
export async function listAttemptsAfter(db: Kysely<DB>, afterId: number, ids: readonly number[], limit: number): Promise<AttemptOfMessage[]> {
  return db
    .selectFrom('message_attempts as a')
    .innerJoin('messages as m', 'm.message_id', 'a.message_id')
    .selectAll('a')
    .select(['m.kind', 'm.subject_type', 'm.subject_id', 'm.url'])
    .where((eb) => eb.or([eb('a.attempt_id', '>', afterId), ...(ids.length > 0 ? [eb('a.attempt_id', 'in', ids)] : [])]))
    .orderBy('a.attempt_id')
    .limit(limit)
    .execute();
}

/**
 * Starts a new round of delivery now (same body, same ids), unless a worker holds the row: an
 * attempt in flight finishes first. False means the row is leased. The message is pending
 * again, so it no longer reads as delivered until its destination accepts it again.
 */
export async function restartDelivery(db: Kysely<DB>, messageId: string, now: number, wallNow: number): Promise<boolean> {
  const result = await db
    .updateTable('messages')
    .set({
      status: 'pending',
      round_step: 0,
      round_started_at: now,
      next_attempt_at: now,
      delivered_at: null,
      lease_id: null,
      locked_until: null,
      updated_at: now,
    })
    .where('message_id', '=', messageId)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', wallNow)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
