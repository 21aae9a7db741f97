// One transfer of a payment at a time: at most one attempt per payment may be waiting for its bank
// (authorizing or uncertain), so two attempts racing past the application's check still cannot
// both reach a bank. The states are written out: an applied migration never changes.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payment_attempts_awaiting_bank')
    .on('payment_attempts')
    .column('payment_id')
    .unique()
    .where(sql<boolean>`state in ('authorizing', 'uncertain')`)
    .execute();
}
