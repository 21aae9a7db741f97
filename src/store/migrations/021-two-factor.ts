// Two-factor sign-in (domain/two-factor.ts): a user's TOTP secret, sealed as API keys are, and the
// last step a code of it was used at; ten single-use recovery codes, kept as hashes; and sessions
// that are only halfway signed in, between the password and the code.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dashboard_users').addColumn('totp_secret_enc', 'text').execute();
  await db.schema.alterTable('dashboard_users').addColumn('totp_last_step', 'bigint').execute();
  await db.schema
    .alterTable('dashboard_sessions')
    .addColumn('second_factor_due', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('dashboard_recovery_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('dashboard_users.user_id'))
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('dashboard_recovery_codes_user').on('dashboard_recovery_codes').column('user_id').execute();
}
