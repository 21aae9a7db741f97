// Payers' reviews of their consents, and what a review shows: the consents of one user at one
// institution that still have a live token.
import type { Insertable, Kysely } from 'kysely';
import type { DB, OAuthConsentReviewRow, OAuthConsentReviewsTable } from './schema.js';

export async function insertReview(db: Kysely<DB>, row: Insertable<OAuthConsentReviewsTable>): Promise<void> {
  await db.insertInto('oauth_consent_reviews').values(row).execute();
}

export async function findReview(db: Kysely<DB>, reviewId: string): Promise<OAuthConsentReviewRow | undefined> {
  return db.selectFrom('oauth_consent_reviews').selectAll().where('review_id', '=', reviewId).executeTakeFirst();
}

export async function deleteStaleReviews(db: Kysely<DB>, before: number): Promise<void> {
  await db.deleteFrom('oauth_consent_reviews').where('created_at', '<', before).execute();
}

export interface LiveConsent {
  consentId: string;
  receiverId: number;
  clientName: string;
  /** When the user last consented. */
  givenAt: number;
  /** When its last live token expires. */
  expiresAt: number;
}

/** A token of one of the user's consents, neither revoked nor expired: whether its account's secret still backs it is for the caller to judge. */
export interface ConsentToken extends LiveConsent {
  secret_generation: number;
  wall_issued_at: number;
}

/** The unrevoked tokens of the user's consents at the institution that have not expired at `now`, the consent given last first. */
export async function unexpiredConsentTokens(db: Kysely<DB>, institutionId: string, userId: string, now: number): Promise<ConsentToken[]> {
  const rows = await db
    .selectFrom('oauth_consents as c')
    .innerJoin('oauth_tokens as t', 't.consent_id', 'c.consent_id')
    .innerJoin('merchants as m', 'm.receiver_id', 'c.receiver_id')
    .select(['c.consent_id', 'c.receiver_id', 'm.name', 'c.updated_at', 't.expires_at', 't.secret_generation', 't.wall_issued_at'])
    .where('c.institution_id', '=', institutionId)
    .where('c.user_id', '=', userId)
    .where('t.revoked_at', 'is', null)
    .where('t.expires_at', '>', now)
    .orderBy('c.updated_at', 'desc')
    .orderBy('c.consent_id')
    .execute();
  return rows.map((r) => ({
    consentId: r.consent_id,
    receiverId: Number(r.receiver_id),
    clientName: r.name,
    givenAt: Number(r.updated_at),
    expiresAt: Number(r.expires_at),
    secret_generation: Number(r.secret_generation),
    wall_issued_at: Number(r.wall_issued_at),
  }));
}

/** A consent, when it is the user's at the institution. */
export async function findConsentOfUser(
  db: Kysely<DB>,
  consentId: string,
  institutionId: string,
  userId: string,
): Promise<{ receiver_id: number; subject: string } | undefined> {
  return db
    .selectFrom('oauth_consents')
    .select(['receiver_id', 'subject'])
    .where('consent_id', '=', consentId)
    .where('institution_id', '=', institutionId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}
