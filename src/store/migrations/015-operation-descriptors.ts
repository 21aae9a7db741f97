// The operation descriptor API: the ring of keys that seal descriptors (each key sealed in turn with
// the secret box), and the operations they describe, each run once by a payer.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('descriptor_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('key_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('retired_at', 'bigint')
    .execute();

  await db.schema
    .createTable('operations')
    .addColumn('operation_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('bank', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('bank_id', 'text')
    .addColumn('payer_identifier', 'text')
    .addColumn('payer_account', 'text')
    .addColumn('payer_name', 'text')
    .addColumn('failure', 'text')
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The start check: the keys of operations that have not expired yet.
  await db.schema.createIndex('operations_expiry').on('operations').columns(['expires_at', 'key_id']).execute();
}
