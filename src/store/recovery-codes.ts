// A user's single-use recovery codes, by hash. Using one is a compare-and-set: of two sign-ins
// racing with the same code, one wins.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export async function replaceRecoveryCodes(db: Kysely<DB>, userId: string, hashes: readonly string[]): Promise<void> {
  await db.deleteFrom('dashboard_recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length > 0)
    await db
      .insertInto('dashboard_recovery_codes')
      .values(hashes.map((code_hash) => ({ code_hash, user_id: userId, used_at: null })))
      .execute();
}

export async function useRecoveryCode(db: Kysely<DB>, userId: string, hash: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('dashboard_recovery_codes')
    .set({ used_at: at })
    .where('code_hash', '=', hash)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
