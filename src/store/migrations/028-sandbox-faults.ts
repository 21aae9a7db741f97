// Faults on demand (developer mode, domain/sandbox-faults.ts): an account's setting, read with the
// account, and the counters every process shares: the API requests still to refuse, those still to
// drop, and the draws taken from the seed. DemoBank keeps what it decided about a transfer it leaves
// uncertain for such an account, to answer it once the fault is removed.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('sandbox_faults', 'text').execute();
  for (const counter of ['faults_refusals_left', 'faults_drops_left', 'faults_draws']) {
    await db.schema
      .alterTable('merchants')
      .addColumn(counter, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db.schema.alterTable('demobank_transfers').addColumn('held_state', 'text').execute();
}
