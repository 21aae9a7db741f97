// The tables of keys kept sealed (app/key-ring.ts): the keys that sign OAuth tokens and those that
// seal operation descriptors. A key is live while unretired, and once retired until a cutoff.
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { DB } from './schema.js';

type KeyTableName = 'oauth_keys' | 'descriptor_keys';

export interface KeyTable<Row> {
  /** Keys that still work: unretired ones, and retired ones younger than `retiredAfter`; newest first. */
  live(db: Kysely<DB>, retiredAfter: number): Promise<Row[]>;
  /** Whether the key with this kid still works (see live). */
  isLive(db: Kysely<DB>, kid: string, retiredAfter: number): Promise<boolean>;
  insert(db: Kysely<DB>, row: Row): Promise<void>;
  /** Retires every unretired key; answers their kids. */
  retire(db: Kysely<DB>, at: number): Promise<string[]>;
  /** Deletes keys retired before `before`: everything they made has expired. */
  deleteRetiredBefore(db: Kysely<DB>, before: number): Promise<number>;
}

function keyTable<T extends KeyTableName>(name: T): KeyTable<Selectable<DB[T]>> {
  const table: KeyTableName = name;
  const live = (retiredAfter: number) => (eb: ExpressionBuilder<DB, typeof table>) =>
    eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]);
  return {
    async live(db, retiredAfter) {
      const rows = await db.selectFrom(table).selectAll().where(live(retiredAfter)).orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
      return rows as Selectable<DB[T]>[];
    },
    async isLive(db, kid, retiredAfter) {
      const row = await db.selectFrom(table).select('kid').where('kid', '=', kid).where(live(retiredAfter)).executeTakeFirst();
      return row !== undefined;
    },
    async insert(db, row) {
      // A row of the table named, which the union of the two tables' columns cannot tell.
      await db
        .insertInto(table)
        .values(row as never)
        .execute();
    },
    async retire(db, at) {
      const rows = await db.updateTable(table).set({ retired_at: at }).where('retired_at', 'is', null).returning('kid').execute();
      return rows.map((r) => r.kid);
    },
    async deleteRetiredBefore(db, before) {
      const result = await db.deleteFrom(table).where('retired_at', '<=', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export const OAUTH_KEYS = keyTable('oauth_keys');
export const DESCRIPTOR_KEYS = keyTable('descriptor_keys');
