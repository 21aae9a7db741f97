// Every column that holds a value sealed with the secret box (runtime/secret-box.ts), and the reads
// and writes `quipu keys reseal` makes on them. A new sealed column is a new row of SEALED_COLUMNS.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface SealedColumn {
  table: keyof DB;
  /** The row's primary key, in the order batches are walked. */
  keys: readonly string[];
  column: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'merchants', keys: ['receiver_id'], column: 'secret_enc' },
  { table: 'merchants', keys: ['receiver_id'], column: 'previous_secret_enc' },
  { table: 'merchants', keys: ['receiver_id'], column: 'api_key_enc' },
  { table: 'dashboard_users', keys: ['user_id'], column: 'totp_secret_enc' },
  { table: 'oauth_keys', keys: ['kid'], column: 'private_key_enc' },
  { table: 'descriptor_keys', keys: ['kid'], column: 'key_enc' },
  // An idempotent request's stored answer: a receiver's creation answers with its secret.
  { table: 'idempotency_keys', keys: ['receiver_id', 'idem_key'], column: 'response_body' },
];

export interface SealedValue {
  /** The row's primary key values, in SEALED_COLUMNS' order. */
  key: unknown[];
  sealed: string;
}

// The tables are named by the row above, not by a literal: Kysely's types cannot follow that.
const loose = (db: Kysely<DB>) => db as unknown as Kysely<any>;

/** Up to `limit` values not starting with `prefix` (not sealed with the current key), after the row `after`. */
export async function valuesNotUnder(db: Kysely<DB>, at: SealedColumn, prefix: string, after: unknown[] | undefined, limit: number): Promise<SealedValue[]> {
  const rows: Record<string, unknown>[] = await loose(db)
    .selectFrom(at.table)
    .select([...at.keys, at.column])
    .where(at.column, 'is not', null)
    .where(at.column, 'not like', `${prefix}%`)
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        at.keys.length === 1 ? eb(eb.ref(at.keys[0]!), '>', after![0]) : eb(eb.refTuple(at.keys[0]!, at.keys[1]!), '>', eb.tuple(after![0], after![1])),
      ),
    )
    .$call((q) => at.keys.reduce((ordered, key) => ordered.orderBy(key), q))
    .limit(limit)
    .execute();
  return rows.map((row) => ({ key: at.keys.map((key) => row[key]), sealed: String(row[at.column]) }));
}

/** Replaces one value, only if it is still the one read: a value changed meanwhile is left as its writer sealed it. */
export async function replaceSealed(db: Kysely<DB>, at: SealedColumn, value: SealedValue, next: string): Promise<boolean> {
  let update = loose(db)
    .updateTable(at.table)
    .set({ [at.column]: next })
    .where(at.column, '=', value.sealed);
  at.keys.forEach((key, i) => (update = update.where(key, '=', value.key[i])));
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** How many values of the column are not sealed with the current key. */
export async function countNotUnder(db: Kysely<DB>, at: SealedColumn, prefix: string): Promise<number> {
  const row = await loose(db)
    .selectFrom(at.table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where(at.column, 'is not', null)
    .where(at.column, 'not like', `${prefix}%`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
