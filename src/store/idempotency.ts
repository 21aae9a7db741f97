// Idempotency keys: the first request with a key claims it; its answer is stored in the same
// transaction as the work it did, so a stored answer always matches work that happened.
import type { Kysely } from 'kysely';
import type { DB, IdempotencyKeysTable } from './schema.js';
import { isUniqueViolation } from './transaction.js';

export type IdempotencyRecord = IdempotencyKeysTable;

/** Claims a key; returns the existing record instead if another request holds or held it. */
export async function claimIdempotencyKey(db: Kysely<DB>, record: IdempotencyRecord): Promise<IdempotencyRecord | undefined> {
  try {
    await db.insertInto('idempotency_keys').values(record).execute();
    return undefined;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('receiver_id', '=', record.receiver_id)
    .where('idem_key', '=', record.idem_key)
    .executeTakeFirst();
}

/** Takes over a claim whose request died before finishing (its transaction never committed). */
export async function retakeIdempotencyKey(db: Kysely<DB>, stale: IdempotencyRecord, record: IdempotencyRecord): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ request_hash: record.request_hash, locked_until: record.locked_until, expires_at: record.expires_at, response_status: null, response_body: null })
    .where('receiver_id', '=', stale.receiver_id)
    .where('idem_key', '=', stale.idem_key)
    .where('locked_until', '=', stale.locked_until)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function storeIdempotentResponse(db: Kysely<DB>, receiverId: number, key: string, status: number, body: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response_status: status, response_body: body })
    .where('receiver_id', '=', receiverId)
    .where('idem_key', '=', key)
    .execute();
}

export async function releaseIdempotencyKey(db: Kysely<DB>, receiverId: number, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('receiver_id', '=', receiverId).where('idem_key', '=', key).execute();
}

export async function pruneIdempotencyKeys(db: Kysely<DB>, now: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).execute();
}
