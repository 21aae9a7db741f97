// Notification rows (the outbox) and their attempts. Claims and results are written in batches:
// one statement claims many due rows, one transaction records many attempts.
import { type Insertable, type Kysely, type SqlBool, sql } from 'kysely';
import { dialectOf } from './database.js';
import type { DB, NotificationAttemptRow, NotificationAttemptsTable, NotificationRow, NotificationsTable } from './schema.js';
import { inTransaction } from './transaction.js';

export type NotificationStatus = 'pending' | 'delivered' | 'exhausted';
export const NOTIFICATION_STATUSES: readonly NotificationStatus[] = ['pending', 'delivered', 'exhausted'];

export type NewAttemptRow = Insertable<NotificationAttemptsTable>;

// A literal, not a parameter: the partial index `notifications_due` only serves queries whose
// condition the planner can match to the index's own.
const PENDING = sql<SqlBool>`status = 'pending'`;

export async function insertNotification(db: Kysely<DB>, row: Insertable<NotificationsTable>): Promise<void> {
  await db.insertInto('notifications').values(row).execute();
}

export interface Claim {
  /** Developer-clock milliseconds: rows due at or before this are claimed. */
  now: number;
  /** Wall-clock milliseconds: leases that ended before this are free. */
  wallNow: number;
  leaseId: string;
  leaseUntil: number;
  limit: number;
}

/**
 * Leases up to `limit` due rows to one worker in one statement. On PostgreSQL the candidate rows
 * are locked with SKIP LOCKED, so concurrent workers claim disjoint sets without waiting on each
 * other; on SQLite the statement runs under the database's single write lock, which serialises
 * claims the same way. The lease (locked_until) keeps the rows from other workers until the
 * attempt is recorded, and frees them if this worker dies first.
 */
export async function claimDueNotifications(db: Kysely<DB>, claim: Claim): Promise<NotificationRow[]> {
  const due = db
    .selectFrom('notifications')
    .select('notification_id')
    .where(PENDING)
    .where('next_attempt_at', '<=', claim.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', claim.wallNow)]))
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

export interface DeliveryOutcome {
  notificationId: string;
  leaseId: string;
  delivered: boolean;
  /** For a failed attempt: when to try again, or null when the schedule is exhausted. */
  nextAttemptAt: number | null;
}

const CHUNK = 500;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Records finished attempts and moves their notifications on, in one transaction. A row whose
 * lease this worker no longer holds (it expired and another worker took it) keeps its state: the
 * attempt is still logged, because it happened.
 */
export async function recordAttempts(db: Kysely<DB>, attempts: NewAttemptRow[], outcomes: DeliveryOutcome[], now: number): Promise<void> {
  await inTransaction(db, async (trx) => {
    for (const part of chunks(attempts)) await trx.insertInto('notification_attempts').values(part).execute();
    const step = { attempts: sql<number>`attempts + 1`, round_step: sql<number>`round_step + 1`, lease_id: null, locked_until: null, updated_at: now };
    // Lease ids are unique per claim, so "one of this batch's leases" is "still this worker's lease".
    const delivered = outcomes.filter((o) => o.delivered);
    for (const part of chunks(delivered)) {
      await trx
        .updateTable('notifications')
        .set({ ...step, status: 'delivered', delivered_at: now, next_attempt_at: null })
        .where('notification_id', 'in', part.map((o) => o.notificationId))
        .where('lease_id', 'in', [...new Set(part.map((o) => o.leaseId))])
        .execute();
    }
    for (const o of outcomes) {
      if (o.delivered) continue;
      await trx
        .updateTable('notifications')
        .set({ ...step, status: o.nextAttemptAt === null ? 'exhausted' : 'pending', next_attempt_at: o.nextAttemptAt })
        .where('notification_id', '=', o.notificationId)
        .where('lease_id', '=', o.leaseId)
        .execute();
    }
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
 * attempt in flight finishes first. False means the row is leased.
 */
export async function restartDelivery(db: Kysely<DB>, notificationId: string, now: number, wallNow: number): Promise<boolean> {
  const result = await db
    .updateTable('notifications')
    .set({ status: 'pending', round_step: 0, round_started_at: now, next_attempt_at: now, lease_id: null, locked_until: null, updated_at: now })
    .where('notification_id', '=', notificationId)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', wallNow)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
