// Redirect URIs registered per client (account).
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export async function redirectUrisOf(db: Kysely<DB>, receiverId: number): Promise<string[]> {
  const rows = await db.selectFrom('oauth_redirect_uris').select('redirect_uri').where('receiver_id', '=', receiverId).orderBy('redirect_uri').execute();
  return rows.map((r) => r.redirect_uri);
}

export async function replaceRedirectUris(db: Kysely<DB>, receiverId: number, uris: readonly string[], now: number): Promise<void> {
  await db.deleteFrom('oauth_redirect_uris').where('receiver_id', '=', receiverId).execute();
  if (uris.length === 0) return;
  await db
    .insertInto('oauth_redirect_uris')
    .values(uris.map((redirect_uri) => ({ receiver_id: receiverId, redirect_uri, created_at: now })))
    .execute();
}
