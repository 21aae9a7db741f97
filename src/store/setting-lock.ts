// A shared setting read for update: concurrent read-modify-write of one value (the developer
// clock's offset) from several processes must not lose a change.
import type { Kysely } from 'kysely';
import { dialectOf } from './database.js';
import type { DB } from './schema.js';

/** Inside a transaction: the setting's value (created as `initial` if absent), locked until the transaction ends. */
export async function lockSetting(trx: Kysely<DB>, name: string, initial: string): Promise<string> {
  await trx
    .insertInto('settings')
    .values({ name, value: initial })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await trx
    .selectFrom('settings')
    .select('value')
    .where('name', '=', name)
    // SQLite transactions already hold the database's write lock (BEGIN IMMEDIATE).
    .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirstOrThrow();
  return row.value;
}
