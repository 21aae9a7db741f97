// The keys of the operation descriptor ring (app/descriptor-keys.ts).
import type { Kysely } from 'kysely';
import type { DB, DescriptorKeyRow } from './schema.js';

/** Keys that still open something: unretired ones, and retired ones younger than `retiredAfter`; newest first. */
export async function liveDescriptorKeys(db: Kysely<DB>, retiredAfter: number): Promise<DescriptorKeyRow[]> {
  return db
    .selectFrom('descriptor_keys')
    .selectAll()
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]))
    .orderBy('created_at', 'desc')
    .orderBy('kid', 'desc')
    .execute();
}

export async function insertDescriptorKey(db: Kysely<DB>, row: DescriptorKeyRow): Promise<void> {
  await db.insertInto('descriptor_keys').values(row).execute();
}

export async function retireDescriptorKeys(db: Kysely<DB>, at: number): Promise<string[]> {
  const rows = await db.updateTable('descriptor_keys').set({ retired_at: at }).where('retired_at', 'is', null).returning('kid').execute();
  return rows.map((r) => r.kid);
}

/** Deletes keys retired before `before`: every descriptor they sealed has expired. */
export async function deleteDescriptorKeysRetiredBefore(db: Kysely<DB>, before: number): Promise<number> {
  const result = await db.deleteFrom('descriptor_keys').where('retired_at', '<=', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
