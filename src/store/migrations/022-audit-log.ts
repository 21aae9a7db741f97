// The audit log (domain/audit.ts): append-only, hash-chained records; the chain's head (last number
// and hash) is kept in `settings` under `audit.head`, locked by each append, and starts at the
// chain's genesis.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('seq', 'bigint', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('receiver_id', 'bigint')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_receiver').on('audit_log').columns(['receiver_id', 'seq']).execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
  await db
    .insertInto('settings')
    .values({ name: 'audit.head', value: JSON.stringify({ seq: 0, hash: '0'.repeat(64) }) })
    .execute();
}
