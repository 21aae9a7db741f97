// Notification rows (the outbox) and their attempts. Claims and results are written in batches:
// one statement claims many due rows, one transaction records many attempts.
import { type Insertable, type Kysely, type SqlBool, sql } from 'kysely';
import { dialectOf } from './database.js';
import { prepare } from './prepared.js';
import type { DB, NotificationAttemptRow, NotificationAttemptsTable, NotificationRow } from './schema.js';
import { inTransaction } from './transaction.js';

export type NotificationStatus = 'pending' | 'delivered' | 'exhausted';
export const NOTIFICATION_STATUSES: readonly NotificationStatus[] = ['pending', 'delivered', 'exhausted'];

export type NewAttemptRow = Insertable<NotificationAttemptsTable>;

// A literal, not a parameter: the partial index `notifications_due` only serves queries whose
// condition the planner can match to the index's own.
const PENDING = sql<SqlBool>`status = 'pending'`;

const NOTIFICATION_COLUMNS = Object.keys({
  notification_id: 0, receiver_id: 0, payment_id: 0, api_version: 0, url: 0, destination: 0, content_type: 0, body: 0, status: 0,
  attempts: 0, round_step: 0, round_started_at: 0, next_attempt_at: 0, lease_id: 0, locked_until: 0, delivered_at: 0,
  created_at: 0, updated_at: 0,
} satisfies Record<keyof NotificationRow, 0>) as (keyof NotificationRow)[];

// Written in every reconciliation's transaction: compiled once (prepared.ts).
const insertRow = prepare(
  (db, row: NotificationRow) => db.insertInto('notifications').values(Object.fromEntries(NOTIFICATION_COLUMNS.map((c) => [c, row[c]])) as NotificationRow),
  (row) => NOTIFICATION_COLUMNS.map((c) => row[c]),
);

export async function insertNotification(db: Kysely<DB>, row: NotificationRow): Promise<void> {
  await insertRow.run(db, row);
}

export interface Claim {
  /** Developer-clock milliseconds: rows due at or before this are claimed. */
  now: number;
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
export async function claimDueNotifications(db: Kysely<DB>, claim: Claim): Promise<NotificationRow[]> {
  const due = db
    .selectFrom('notifications')
    .select('notification_id')
    .where(PENDING)
    .where('next_attempt_at', '<=', claim.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', claim.wallNow)]))
    .$if(claim.skipDestinations.length > 0, (q) => q.where('destination', 'not in', claim.skipDestinations))
    .orderBy('next_attempt_at')
    .limit(claim.limit)
    .$if(dialectOf(db) === 'postgres', (q) => q.forUpdate().skipLocked());
  return db
    .updateTable('notifications')
    .set({ lease_id: claim.leaseId, locked_until: claim.leaseUntil })
    .where('notification_id', 'in', due)
    .returningAll()
    .execute();
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
  /** The attempt moved its notification on: the worker still held the lease. */
  applied: boolean;
}

const CHUNK = 500;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Records finished attempts (at most one per notification) in one transaction. Every attempt is
 * logged, numbered from its notification's own counter, which the same statement increments: the
 * row lock (PostgreSQL) or the single writer (SQLite) then keeps numbers from repeating, whichever
 * worker records. An attempt moves its notification on (delivered, next attempt, exhausted) only
 * if the lease is still this worker's; if it ended and another worker took the row, the attempt
 * is logged all the same, because it happened, and the notification is left to that worker.
 */
export async function recordAttempts(db: Kysely<DB>, finished: FinishedAttempt[], now: number): Promise<Map<string, RecordedAttempt>> {
  return inTransaction(db, async (trx) => {
    const recorded = new Map<string, RecordedAttempt>();
    const moveOn = { attempts: sql<number>`attempts + 1`, round_step: sql<number>`round_step + 1`, lease_id: null, locked_until: null, updated_at: now };
    // Lease ids are unique per claim, so "one of this batch's leases" is "still this worker's lease".
    for (const part of chunks(finished.filter((f) => f.attempt.outcome === 'delivered'))) {
      const rows = await trx
        .updateTable('notifications')
        .set({ ...moveOn, status: 'delivered', delivered_at: now, next_attempt_at: null })
        .where('notification_id', 'in', part.map((f) => f.attempt.notification_id))
        .where('lease_id', 'in', [...new Set(part.map((f) => f.leaseId))])
        .returning(['notification_id', 'attempts'])
        .execute();
      for (const row of rows) recorded.set(row.notification_id, { number: row.attempts, applied: true });
    }
    for (const f of finished) {
      if (f.attempt.outcome === 'delivered') continue;
      const row = await trx
        .updateTable('notifications')
        .set({ ...moveOn, status: f.nextAttemptAt === null ? 'exhausted' : 'pending', next_attempt_at: f.nextAttemptAt })
        .where('notification_id', '=', f.attempt.notification_id)
        .where('lease_id', '=', f.leaseId)
        .returning('attempts')
        .executeTakeFirst();
      if (row) recorded.set(f.attempt.notification_id, { number: row.attempts, applied: true });
    }
    for (const f of finished) {
      if (recorded.has(f.attempt.notification_id)) continue;
      const row = await trx
        .updateTable('notifications')
        .set({ attempts: sql<number>`attempts + 1`, updated_at: now })
        .where('notification_id', '=', f.attempt.notification_id)
        .returning('attempts')
        .executeTakeFirst();
      if (row) recorded.set(f.attempt.notification_id, { number: row.attempts, applied: false });
    }
    const rows = finished.flatMap((f) => {
      const r = recorded.get(f.attempt.notification_id);
      return r ? [{ ...f.attempt, number: r.number }] : [];
    });
    for (const part of chunks(rows)) await trx.insertInto('notification_attempts').values(part).execute();
    return recorded;
  });
}

/** Gives claimed rows back (to be claimed again now) if their leases are still these. */
export async function releaseClaims(db: Kysely<DB>, notificationIds: string[], leaseIds: string[]): Promise<void> {
  for (const part of chunks(notificationIds)) {
    await db.updateTable('notifications').set({ lease_id: null, locked_until: null }).where('notification_id', 'in', part).where('lease_id', 'in', leaseIds).execute();
  }
}

export interface NotificationFilter {
  receiverId?: number;
  paymentId?: string;
  status?: NotificationStatus;
  limit: number;
  offset: number;
}

/** Newest first. */
export async function listNotificationRows(db: Kysely<DB>, filter: NotificationFilter): Promise<NotificationRow[]> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .$if(filter.receiverId !== undefined, (q) => q.where('receiver_id', '=', filter.receiverId!))
    .$if(filter.paymentId !== undefined, (q) => q.where('payment_id', '=', filter.paymentId!))
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .orderBy('created_at', 'desc')
    .orderBy('notification_id', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();
}

/** One notification; with `receiverId`, only that account's. */
export async function findNotificationRow(db: Kysely<DB>, notificationId: string, receiverId?: number): Promise<NotificationRow | undefined> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('notification_id', '=', notificationId)
    .$if(receiverId !== undefined, (q) => q.where('receiver_id', '=', receiverId!))
    .executeTakeFirst();
}

export async function listAttemptRows(db: Kysely<DB>, notificationId: string): Promise<NotificationAttemptRow[]> {
  return db.selectFrom('notification_attempts').selectAll().where('notification_id', '=', notificationId).orderBy('attempt_id').execute();
}

/**
 * Starts a new round of delivery now (same body, same ids), unless a worker holds the row: an
 * attempt in flight finishes first. False means the row is leased. The notification is pending
 * again, so it no longer reads as delivered until a receiver answers 200 again.
 */
export async function restartDelivery(db: Kysely<DB>, notificationId: string, now: number, wallNow: number): Promise<boolean> {
  const result = await db
    .updateTable('notifications')
    .set({ status: 'pending', round_step: 0, round_started_at: now, next_attempt_at: now, delivered_at: null, lease_id: null, locked_until: null, updated_at: now })
    .where('notification_id', '=', notificationId)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', wallNow)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
