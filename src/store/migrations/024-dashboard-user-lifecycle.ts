// Dashboard users' lifecycle (docs/dashboard.md): a generated password's expiry, after which it no
// longer signs in and before which it must be replaced at sign-in; a user disabled by the operator;
// the address and browser a session was opened from, shown on the user's sessions page. And the
// recovery codes of migration 021: 50 bits stored as unsalted hashes, which ASVS 6.5.2 refuses.
// Their hashes cannot be carried to the new salted form without the codes themselves, so the
// unused ones are withdrawn here: their users keep their authenticator, and the operator gives them
// new codes with `quipu users two-factor-enrol` (docs/security.md).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dashboard_users').addColumn('password_expires_at', 'bigint').execute();
  await db.schema.alterTable('dashboard_users').addColumn('disabled_at', 'bigint').execute();
  await db.schema.alterTable('dashboard_sessions').addColumn('address', 'text').execute();
  await db.schema.alterTable('dashboard_sessions').addColumn('user_agent', 'text').execute();
  await db.deleteFrom('dashboard_recovery_codes').execute();
}
