// Each developer-mode account may run on a clock of its own (store/account-time.ts): its offset from
// real time, null while it follows the installation's clock, and a version that orders the reads of
// it by other processes. DemoBank's mandates and debits fall due on the clock of the account they
// collect for.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('clock_offset_ms', 'bigint').execute();
  await db.schema
    .alterTable('merchants')
    .addColumn('clock_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('demobank_mandates').addColumn('receiver_id', 'integer').execute();
  await db.schema.alterTable('demobank_debits').addColumn('receiver_id', 'integer').execute();
}
