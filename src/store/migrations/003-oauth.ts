// The authorization server: signing keys, redirect URIs per client, authorization flows (with
// their codes), user consents and issued tokens (only the jti and what revocation needs).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_key_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('retired_at', 'bigint')
    .execute();

  await db.schema
    .createTable('oauth_redirect_uris')
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_redirect_uris_pk', ['receiver_id', 'redirect_uri'])
    .execute();

  await db.schema
    .createTable('oauth_consents')
    .addColumn('consent_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('institution_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('oauth_consents_user', ['receiver_id', 'institution_id', 'user_id'])
    .execute();
  await db.schema.createIndex('oauth_consents_institution_user').on('oauth_consents').columns(['institution_id', 'user_id']).execute();

  await db.schema
    .createTable('oauth_authorizations')
    .addColumn('authorization_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('response_mode', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('nonce', 'text')
    .addColumn('custom', 'text')
    .addColumn('institution_id', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text')
    .addColumn('code_challenge_method', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('step_deadline', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('authenticated_at', 'bigint')
    .addColumn('consent_id', 'text', (c) => c.references('oauth_consents.consent_id'))
    .addColumn('code_hash', 'text', (c) => c.unique())
    .addColumn('code_expires_at', 'bigint')
    .addColumn('redeemed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_authorizations_user').on('oauth_authorizations').columns(['institution_id', 'user_id']).execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('grant_type', 'text', (c) => c.notNull())
    .addColumn('authorization_id', 'text', (c) => c.references('oauth_authorizations.authorization_id'))
    .addColumn('consent_id', 'text', (c) => c.references('oauth_consents.consent_id'))
    .addColumn('issued_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('oauth_tokens_authorization').on('oauth_tokens').column('authorization_id').execute();
  await db.schema.createIndex('oauth_tokens_consent').on('oauth_tokens').column('consent_id').execute();
}
