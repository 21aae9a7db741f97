// Housekeeping asks the banks about the transfers they left uncertain (src/app/resolve-transfers.ts):
// a partial index keeps that a walk over the few attempts in that state. DemoBank, the simulated
// bank, keeps its books in the database so the server, the workers and the CLI see one bank: each
// transfer it was asked for and what became of it, its credits numbered in the order they were
// booked (src/bank/demo-bank-books.ts).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payment_attempts_uncertain')
    .on('payment_attempts')
    .columns(['updated_at', 'attempt_id'])
    .where(sql<boolean>`state = 'uncertain'`)
    .execute();

  await db.schema
    .createTable('demobank_transfers')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('credit', 'text')
    .addColumn('credit_seq', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('demobank_transfers_credit_seq').on('demobank_transfers').column('credit_seq').unique().execute();
}
