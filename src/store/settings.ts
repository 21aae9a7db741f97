// Named values shared by every process of one installation (the developer clock's offset).
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export async function readSetting(db: Kysely<DB>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

export async function writeSetting(db: Kysely<DB>, name: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
    .execute();
}
