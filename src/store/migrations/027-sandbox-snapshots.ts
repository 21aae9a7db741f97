// Snapshots of sandbox accounts (store/account-snapshots.ts): a row per snapshot, and a row per table
// of ACCOUNT_RECORDS holding that table's rows of the account as one JSON array of row objects, so
// that recording and restoring each table is one statement the database runs on its own, the rows
// never crossing to the process (one document for the whole account would be read whole again for
// each table). Not rows of ACCOUNT_RECORDS themselves: a restore must not remove
// them; they go with their account when it is deleted.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandbox_snapshots')
    .addColumn('snapshot_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull())
    // Wall-clock milliseconds: when it was taken, whatever the account's clock said.
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('row_count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sandbox_snapshots_receiver').on('sandbox_snapshots').columns(['receiver_id', 'created_at']).execute();
  await db.schema
    .createTable('sandbox_snapshot_tables')
    .addColumn('snapshot_id', 'text', (c) => c.notNull().references('sandbox_snapshots.snapshot_id'))
    .addColumn('table_name', 'text', (c) => c.notNull())
    /** A JSON array of the column names the rows were recorded with. */
    .addColumn('columns', 'text', (c) => c.notNull())
    /** A JSON array of the rows, each an object by column name. */
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('row_count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('sandbox_snapshot_tables_pk', ['snapshot_id', 'table_name'])
    .execute();
}
