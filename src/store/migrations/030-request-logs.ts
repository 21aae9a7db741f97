// The per-account log of API requests (app/request-log.ts): one row per authenticated request of
// the merchant APIs, written in batches. Rows of an account are read newest first by id (the
// dashboard's page), every account's in id order (`quipu listen`), and pruned oldest id first: one
// index besides the key, since every API request writes a row.
import type { Kysely } from 'kysely';
import { dialectOf } from '../database.js';

export async function up(db: Kysely<any>): Promise<void> {
  const table = db.schema.createTable('request_logs');
  await (
    dialectOf(db) === 'postgres'
      ? table.addColumn('request_log_id', 'bigserial', (c) => c.primaryKey())
      : table.addColumn('request_log_id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('receiver_id', 'bigint', (c) => c.notNull())
    // When it was answered, on the account's clock.
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    // The Quipu-Ignored-Fields header the answer carried; null when nothing was ignored.
    .addColumn('ignored_fields', 'text')
    // The beginning of a 4xx or 5xx answer's body; null for any other.
    .addColumn('error_body', 'text')
    .execute();
  await db.schema.createIndex('request_logs_receiver').on('request_logs').columns(['receiver_id', 'request_log_id']).execute();
}
