// Payer emails. A payment that sends reminders keeps the instant of its next one, which the
// reminder job looks for (a partial index: only payments with a reminder to come are in it). A
// message may carry a validity: not sent from then on, but withdrawn (status `cancelled`). Payments
// created before emails existed were never emailed, so none of them gets reminders.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('next_reminder_at', 'bigint').execute();
  await db.schema
    .createIndex('payments_next_reminder')
    .on('payments')
    .column('next_reminder_at')
    .where(sql<boolean>`next_reminder_at is not null`)
    .execute();
  await db.schema.alterTable('messages').addColumn('valid_until', 'bigint').execute();
}
