// Merchant (collection account) rows.
import type { Kysely } from 'kysely';
import type { DB, MerchantRow, MerchantsTable, NewMerchantRow } from './schema.js';

/**
 * Inserts an account unless its receiver id (or API key hash) is taken: false then. A conflict is
 * not an error, so a PostgreSQL transaction around it (an idempotent request) stays usable.
 */
export async function insertMerchant(db: Kysely<DB>, row: NewMerchantRow): Promise<boolean> {
  const result = await db
    .insertInto('merchants')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function hasProductionAccounts(db: Kysely<DB>): Promise<boolean> {
  return (await db.selectFrom('merchants').select('receiver_id').where('developer', '=', 0).limit(1).executeTakeFirst()) !== undefined;
}

export async function findMerchantRow(db: Kysely<DB>, receiverId: number): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('receiver_id', '=', receiverId).executeTakeFirst();
}

/** The account whose API key, or whose key replaced but still in its grace period at `now`, has this hash. */
export async function findReceiverIdByApiKeyHash(db: Kysely<DB>, hash: string, now: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select('receiver_id')
    .where((eb) => eb.or([eb('api_key_hash', '=', hash), eb.and([eb('previous_api_key_hash', '=', hash), eb('previous_api_key_until', '>', now)])]))
    .executeTakeFirst();
  return row?.receiver_id;
}

export async function receiverIdExists(db: Kysely<DB>, receiverId: number): Promise<boolean> {
  const row = await db.selectFrom('merchants').select('receiver_id').where('receiver_id', '=', receiverId).executeTakeFirst();
  return row !== undefined;
}

/** Those of `receiverIds` that name an account. */
export async function existingReceiverIds(db: Kysely<DB>, receiverIds: readonly number[]): Promise<Set<number>> {
  if (receiverIds.length === 0) return new Set();
  const rows = await db.selectFrom('merchants').select('receiver_id').where('receiver_id', 'in', receiverIds).execute();
  return new Set(rows.map((row) => Number(row.receiver_id)));
}

export async function listMerchantRows(db: Kysely<DB>): Promise<MerchantRow[]> {
  return db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('receiver_id').execute();
}

export async function countMerchants(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateMerchantRow(
  db: Kysely<DB>,
  receiverId: number,
  changes: Partial<Omit<MerchantsTable, 'receiver_id' | 'clock_version'>>,
): Promise<boolean> {
  const result = await db.updateTable('merchants').set(changes).where('receiver_id', '=', receiverId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
