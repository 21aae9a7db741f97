// One outbox for everything Quipu sends. The payment notification rows (a payment id that could
// not be null) become messages that name their kind, their subject (a payment, a receiver, ...)
// and how they are signed; their attempts follow with their numbers. Ids, bodies and delivery
// state are copied as they are. `notifications` and `notification_attempts` stay readable as views
// of the payment notifications, with their old columns, for the SQL operators already run.
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

// Written out, not imported: an applied migration never changes, whatever the kinds table becomes.
const V13 = 'payment.notification.1.3';
const V30 = 'payment.notification.3.0';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('signing', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
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
    .createIndex('messages_due')
    .on('messages')
    .column('next_attempt_at')
    .where(sql<boolean>`status = 'pending'`)
    .execute();
  await db.schema.createIndex('messages_receiver_created').on('messages').columns(['receiver_id', 'created_at', 'message_id']).execute();
  await db.schema.createIndex('messages_created').on('messages').columns(['created_at', 'message_id']).execute();
  await db.schema.createIndex('messages_subject').on('messages').column('subject_id').execute();

  const attempts = db.schema.createTable('message_attempts');
  await (
    dialectOf(db) === 'postgres'
      ? attempts.addColumn('attempt_id', 'bigserial', (c) => c.primaryKey())
      : attempts.addColumn('attempt_id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.message_id'))
    .addColumn('receiver_id', 'bigint', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    // The HTTP status, or the SMTP server's reply code.
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .execute();
  await db.schema.createIndex('message_attempts_message').on('message_attempts').columns(['message_id', 'attempt_id']).execute();

  await sql`
    insert into messages (message_id, receiver_id, kind, subject_type, subject_id, url, destination, content_type, body, signing, status,
                          attempts, round_step, round_started_at, next_attempt_at, lease_id, locked_until, delivered_at, created_at, updated_at)
    select notification_id, receiver_id, case api_version when '1.3' then ${V13} else ${V30} end, 'payment', payment_id, url, destination,
           content_type, body, case api_version when '1.3' then 'none' else 'khipu-signature' end, status,
           attempts, round_step, round_started_at, next_attempt_at, lease_id, locked_until, delivered_at, created_at, updated_at
    from notifications`.execute(db);
  await sql`
    insert into message_attempts (attempt_id, message_id, receiver_id, number, trigger, due_at, started_at, latency_ms, outcome, status_code, error, response_excerpt)
    select attempt_id, notification_id, receiver_id, number, trigger, due_at, started_at, latency_ms, outcome, http_status, error, response_excerpt
    from notification_attempts`.execute(db);
  if (dialectOf(db) === 'postgres') {
    await sql`select setval(pg_get_serial_sequence('message_attempts', 'attempt_id'), coalesce((select max(attempt_id) from message_attempts), 0) + 1, false)`.execute(
      db,
    );
  }
  await db.schema.dropTable('notification_attempts').execute();
  await db.schema.dropTable('notifications').execute();

  await db.schema
    .createView('notifications')
    .as(
      db
        .selectFrom('messages')
        .select([
          'message_id as notification_id',
          'receiver_id',
          'subject_id as payment_id',
          sql<string>`case kind when ${sql.lit(V13)} then '1.3' else '3.0' end`.as('api_version'),
          'url',
          'destination',
          'content_type',
          'body',
          'status',
          'attempts',
          'round_step',
          'round_started_at',
          'next_attempt_at',
          'lease_id',
          'locked_until',
          'delivered_at',
          'created_at',
          'updated_at',
        ])
        .where('kind', 'in', [sql.lit(V13), sql.lit(V30)]),
    )
    .execute();
  await db.schema
    .createView('notification_attempts')
    .as(
      db
        .selectFrom('message_attempts as a')
        .innerJoin('messages as m', 'm.message_id', 'a.message_id')
        .select([
          'a.attempt_id',
          'a.message_id as notification_id',
          'a.receiver_id',
          'a.number',
          'a.trigger',
          'a.due_at',
          'a.started_at',
          'a.latency_ms',
          'a.outcome',
          'a.status_code as http_status',
          'a.error',
          'a.response_excerpt',
        ])
        .where('m.kind', 'in', [sql.lit(V13), sql.lit(V30)]),
    )
    .execute();
}
