// The sandbox kept to what is its own. `merchants.sandbox_made`: the accounts POST /sandbox/accounts
// (and `quipu sandbox create`) made, the only ones its door deletes, records and restores; the
// accounts already there cannot be told apart and stay the installation's (0), the demo account and
// `quipu merchants create`'s among them. `account_wakes`: an account whose clock moved, or whose
// snapshot was restored, waiting for the job runner to run that account's work alone
// (jobs/runner.ts), `version` counting the wakes so that one arriving during a run is not lost with it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('merchants')
    .addColumn('sandbox_made', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('account_wakes')
    .addColumn('receiver_id', 'bigint', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('lease_id', 'text')
    // Wall-clock milliseconds, as the jobs' leases.
    .addColumn('locked_until', 'bigint')
    .execute();
}
