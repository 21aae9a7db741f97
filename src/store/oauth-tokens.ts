// Issued access tokens: jti, owner, origin (flow and consent, the secret's generation), expiry and
// wall-clock issue time; revocation marks them.
import type { Insertable, Kysely } from 'kysely';
import type { DB, OAuthTokensTable } from './schema.js';

export type TokenState = Pick<OAuthTokensTable, 'receiver_id' | 'revoked_at' | 'secret_generation' | 'wall_issued_at'>;

export async function insertToken(db: Kysely<DB>, row: Insertable<OAuthTokensTable>): Promise<void> {
  await db.insertInto('oauth_tokens').values(row).execute();
}

export async function findTokenState(db: Kysely<DB>, jti: string): Promise<TokenState | undefined> {
  return db.selectFrom('oauth_tokens').select(['receiver_id', 'revoked_at', 'secret_generation', 'wall_issued_at']).where('jti', '=', jti).executeTakeFirst();
}

type Selector = { jti: string } | { authorizationId: string } | { consentIds: string[] } | { receiverId: number };

/** Marks unrevoked tokens revoked and returns their jtis, so every process can be told. */
export async function revokeTokens(db: Kysely<DB>, selector: Selector, at: number): Promise<string[]> {
  let query = db.updateTable('oauth_tokens').set({ revoked_at: at }).where('revoked_at', 'is', null);
  if ('jti' in selector) query = query.where('jti', '=', selector.jti);
  else if ('authorizationId' in selector) query = query.where('authorization_id', '=', selector.authorizationId);
  else if ('receiverId' in selector) query = query.where('receiver_id', '=', selector.receiverId);
  else if (selector.consentIds.length === 0) return [];
  else query = query.where('consent_id', 'in', selector.consentIds);
  const rows = await query.returning('jti').execute();
  return rows.map((r) => r.jti);
}

/** Tokens expired at `now`, or issued before `issuedBefore` on the wall clock, no longer verify whatever their row says: their rows can go. */
export async function deleteExpiredTokens(db: Kysely<DB>, now: number, issuedBefore: number): Promise<void> {
  await db
    .deleteFrom('oauth_tokens')
    .where((eb) => eb.or([eb('expires_at', '<', now), eb('wall_issued_at', '<', issuedBefore)]))
    .execute();
}

/** The jtis of the account's unrevoked tokens. */
export async function unrevokedTokenIds(db: Kysely<DB>, receiverId: number): Promise<string[]> {
  const rows = await db.selectFrom('oauth_tokens').select('jti').where('receiver_id', '=', receiverId).where('revoked_at', 'is', null).execute();
  return rows.map((r) => r.jti);
}
