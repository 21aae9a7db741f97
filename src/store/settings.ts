// Named values shared by every process of one installation (the developer clock's offset).
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export async function readSetting(db: Kysely<DB>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Several settings in one read, so that values written together are seen together. */
export async function readSettings(db: Kysely<DB>, names: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.selectFrom('settings').select(['name', 'value']).where('name', 'in', names).execute();
  return new Map(rows.map((row) => [row.name, row.value]));
}

export async function writeSetting(db: Kysely<DB>, name: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
    .execute();
}
