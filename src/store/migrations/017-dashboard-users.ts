// The merchant dashboard: the people who sign in to an account's dashboard (an email unique in the
// installation, a scrypt hash of their password), their sessions kept server-side so that signing
// out or a password reset ends them at once (only a hash of the cookie's token is stored), and
// the failed sign-ins that rate-limit guessing. An account's API key is also kept sealed beside its
// hash, so the dashboard can show it again; keys issued before this migration cannot be shown and
// are rotated to get one that can.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('api_key_enc', 'text').execute();

  await db.schema
    .createTable('dashboard_users')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_users_receiver').on('dashboard_users').column('receiver_id').execute();

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('dashboard_users.user_id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_user').on('dashboard_sessions').column('user_id').execute();

  await db.schema
    .createTable('sign_in_failures')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_subject').on('sign_in_failures').columns(['subject', 'failed_at']).execute();
}
