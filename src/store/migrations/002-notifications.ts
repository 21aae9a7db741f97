// The notification outbox and its delivery log. A notification row is written in the transaction
// that reconciles the payment; delivery workers claim due rows with a lease and record every attempt.
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('notification_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.payment_id'))
    .addColumn('api_version', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    // The exact bytes sent on every attempt (fixed at enqueue time).
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // Attempts made in the current round (the first delivery, or since the last resend).
    .addColumn('round_step', 'integer', (c) => c.notNull())
    .addColumn('round_started_at', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_id', 'text')
    .addColumn('locked_until', 'bigint')
    .addColumn('delivered_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notifications_due')
    .on('notifications')
    .column('next_attempt_at')
    .where(sql<boolean>`status = 'pending'`)
    .execute();
  await db.schema.createIndex('notifications_receiver_created').on('notifications').columns(['receiver_id', 'created_at']).execute();
  await db.schema.createIndex('notifications_payment').on('notifications').column('payment_id').execute();

  const attempts = db.schema.createTable('notification_attempts');
  await (
    dialectOf(db) === 'postgres'
      ? attempts.addColumn('attempt_id', 'bigserial', (c) => c.primaryKey())
      : attempts.addColumn('attempt_id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('notification_id', 'text', (c) => c.notNull().references('notifications.notification_id'))
    .addColumn('receiver_id', 'bigint', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .execute();
  await db.schema.createIndex('notification_attempts_notification').on('notification_attempts').columns(['notification_id', 'attempt_id']).execute();
}
