// Background jobs run once per installation, not once per process: one row per recurring job
// (src/jobs/jobs.ts) says when it is next due on the developer clock and which process holds it,
// until when on the wall clock (src/store/jobs.ts). DemoBank keeps a journal of what it was asked
// (src/bank/demo-bank-books.ts), for developers and for the tests that count its requests.
import type { Kysely } from 'kysely';
import { dialectOf } from '../database.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_id', 'text')
    .addColumn('locked_until', 'bigint')
    .addColumn('runner', 'text')
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_started_at', 'bigint')
    .addColumn('last_finished_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'bigint')
    .execute();

  const requests = db.schema.createTable('demobank_requests');
  await (
    dialectOf(db) === 'postgres'
      ? requests.addColumn('request_id', 'bigserial', (c) => c.primaryKey())
      : requests.addColumn('request_id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('asked_at', 'bigint', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('payment_id', 'text')
    .addColumn('cursor', 'text')
    .addColumn('answer', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('demobank_requests_payment').on('demobank_requests').columns(['payment_id', 'request_id']).execute();
}
