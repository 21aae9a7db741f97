// A payer's review of the consents they gave (app/consent-review.ts): like an authorization flow,
// opened by one browser (only the SHA-256 of its secret is kept), signed in at one institution,
// and good for a limited time.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_consent_reviews')
    .addColumn('review_id', 'text', (c) => c.primaryKey())
    .addColumn('institution_id', 'text', (c) => c.notNull())
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    // 'login', 'review' (signed in) or 'failed'
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('step_deadline', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_consent_reviews_created').on('oauth_consent_reviews').column('created_at').execute();
}
