// Failed sign-ins as one row per subject (domain/sign-in-throttle.ts) instead of one row per
// failure: counting and reserving an attempt is then one locked row, so parallel guesses cannot
// all pass a count taken before any of them is recorded, and the table holds one short row per
// subject, pruned once forgotten, whatever is sent.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sign_in_throttles')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_throttles_last_failure').on('sign_in_throttles').column('last_failure_at').execute();
  await db.schema.dropTable('sign_in_failures').execute();
}
