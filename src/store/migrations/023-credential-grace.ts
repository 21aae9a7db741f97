// Rotating an account's API key or receiver secret with a grace period: the one replaced keeps
// working until the instant kept beside it, so a merchant rolls to the new one without downtime.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('previous_api_key_hash', 'text').execute();
  await db.schema.alterTable('merchants').addColumn('previous_api_key_until', 'bigint').execute();
  await db.schema.alterTable('merchants').addColumn('previous_secret_enc', 'text').execute();
  await db.schema.alterTable('merchants').addColumn('previous_secret_until', 'bigint').execute();
  await db.schema.createIndex('merchants_previous_api_key').on('merchants').column('previous_api_key_hash').execute();
}
