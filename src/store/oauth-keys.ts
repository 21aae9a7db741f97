// Token signing keys.
import type { Kysely } from 'kysely';
import type { DB, OAuthKeyRow } from './schema.js';

/** Keys that still verify something: unretired ones, and retired ones younger than `retiredAfter`. */
export async function liveKeys(db: Kysely<DB>, retiredAfter: number): Promise<OAuthKeyRow[]> {
  return db
    .selectFrom('oauth_keys')
    .selectAll()
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]))
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
}

/** Whether a key with this kid still verifies something (see liveKeys). */
export async function isLiveKey(db: Kysely<DB>, kid: string, retiredAfter: number): Promise<boolean> {
  const row = await db
    .selectFrom('oauth_keys')
    .select('kid')
    .where('kid', '=', kid)
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]))
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertKey(db: Kysely<DB>, row: OAuthKeyRow): Promise<void> {
  await db.insertInto('oauth_keys').values(row).execute();
}

export async function retireKeys(db: Kysely<DB>, at: number): Promise<string[]> {
  const rows = await db.updateTable('oauth_keys').set({ retired_at: at }).where('retired_at', 'is', null).returning('kid').execute();
  return rows.map((r) => r.kid);
}

/** Deletes keys retired before `before`: every token they signed has expired. */
export async function deleteKeysRetiredBefore(db: Kysely<DB>, before: number): Promise<number> {
  const result = await db.deleteFrom('oauth_keys').where('retired_at', '<=', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
