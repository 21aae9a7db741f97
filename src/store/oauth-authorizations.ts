// Authorization code flows and the consents they record.
import type { Insertable, Kysely } from 'kysely';
import type { DB, OAuthAuthorizationRow, OAuthAuthorizationsTable, OAuthConsentsTable } from './schema.js';

export async function insertAuthorization(db: Kysely<DB>, row: Insertable<OAuthAuthorizationsTable>): Promise<void> {
  await db.insertInto('oauth_authorizations').values(row).execute();
}

export async function findAuthorization(db: Kysely<DB>, authorizationId: string): Promise<OAuthAuthorizationRow | undefined> {
  return db.selectFrom('oauth_authorizations').selectAll().where('authorization_id', '=', authorizationId).executeTakeFirst();
}

export async function findAuthorizationByCode(db: Kysely<DB>, codeHash: string): Promise<OAuthAuthorizationRow | undefined> {
  return db.selectFrom('oauth_authorizations').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/** The user's consent to this client at this institution, created on first use; its subject never changes. */
export async function upsertConsent(db: Kysely<DB>, row: Insertable<OAuthConsentsTable>): Promise<{ consent_id: string; subject: string }> {
  await db
    .insertInto('oauth_consents')
    .values(row)
    .onConflict((oc) => oc.columns(['receiver_id', 'institution_id', 'user_id']).doUpdateSet({ updated_at: row.updated_at }))
    .execute();
  return db
    .selectFrom('oauth_consents')
    .select(['consent_id', 'subject'])
    .where('receiver_id', '=', row.receiver_id)
    .where('institution_id', '=', row.institution_id)
    .where('user_id', '=', row.user_id)
    .executeTakeFirstOrThrow();
}

export async function findConsentSubject(db: Kysely<DB>, consentId: string): Promise<string | undefined> {
  const row = await db.selectFrom('oauth_consents').select('subject').where('consent_id', '=', consentId).executeTakeFirst();
  return row?.subject;
}

/** Consents of one user at one institution, optionally only those given to one client. */
export async function consentIdsOfUser(db: Kysely<DB>, institutionId: string, userId: string, receiverId?: number): Promise<string[]> {
  let query = db.selectFrom('oauth_consents').select('consent_id').where('institution_id', '=', institutionId).where('user_id', '=', userId);
  if (receiverId !== undefined) query = query.where('receiver_id', '=', receiverId);
  return (await query.execute()).map((r) => r.consent_id);
}

/** Uses the flow's code up: only the first caller gets true, whatever the outcome of its exchange. */
export async function consumeCode(db: Kysely<DB>, authorizationId: string, at: number, status: 'done' | 'failed'): Promise<boolean> {
  const result = await db
    .updateTable('oauth_authorizations')
    .set({ redeemed_at: at, status })
    .where('authorization_id', '=', authorizationId)
    .where('redeemed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Fails the flows of a user that signed in but whose code is not redeemed yet. */
export async function withdrawUnfinishedFlows(db: Kysely<DB>, institutionId: string, userId: string, receiverId?: number): Promise<void> {
  let query = db
    .updateTable('oauth_authorizations')
    .set({ status: 'failed' })
    .where('institution_id', '=', institutionId)
    .where('user_id', '=', userId)
    .where('status', 'in', ['consent', 'code']);
  if (receiverId !== undefined) query = query.where('receiver_id', '=', receiverId);
  await query.execute();
}

/** Finished or abandoned flows older than `before`, once no live token refers to them. */
export async function deleteStaleAuthorizations(db: Kysely<DB>, before: number): Promise<void> {
  await db
    .deleteFrom('oauth_authorizations')
    .where('created_at', '<', before)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('oauth_tokens').select('jti').whereRef('oauth_tokens.authorization_id', '=', 'oauth_authorizations.authorization_id'))),
    )
    .execute();
}
