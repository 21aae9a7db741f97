// The dashboard's operations list (store/operations.ts, listOperations): an account's operations
// newest first, paged by (created_at, operation_id). The one index of migration 015 leads with the
// expiry, for the start check, and serves no account's listing.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('operations_list').on('operations').columns(['receiver_id', 'created_at', 'operation_id']).execute();
}
