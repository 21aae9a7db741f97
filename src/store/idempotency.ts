// Idempotency keys: the first request with a key claims it; its answer is stored in the same
// transaction as the work it did, so a stored answer always matches work that happened.
//
// A claim is known by its `locked_until`: a claim is taken over only once its lock has passed, and
// the new holder's lock ends later still, so no two holders of a key ever share one. Storing an
// answer and releasing a key match the holder's own lock (and an unanswered key): a request that
// ran past its lock, and lost its claim, can neither commit its answer beside the new holder's work
// nor free the new holder's claim.
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
  return db.selectFrom('idempotency_keys').selectAll().where('receiver_id', '=', record.receiver_id).where('idem_key', '=', record.idem_key).executeTakeFirst();
}

/**
 * Takes over a claim whose request died before finishing (its transaction never committed), or a
 * key that expired. Only if it is still as read: not taken over, and not answered meanwhile.
 */
export async function retakeIdempotencyKey(db: Kysely<DB>, stale: IdempotencyRecord, record: IdempotencyRecord): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ request_hash: record.request_hash, locked_until: record.locked_until, expires_at: record.expires_at, response_status: null, response_body: null })
    .where('receiver_id', '=', stale.receiver_id)
    .where('idem_key', '=', stale.idem_key)
    .where('locked_until', '=', stale.locked_until)
    .where('response_status', stale.response_status === null ? 'is' : '=', stale.response_status)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Stores the answer of the request holding `claim`; false if its claim was taken over. */
export async function storeIdempotentResponse(db: Kysely<DB>, claim: IdempotencyRecord, status: number, body: string): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ response_status: status, response_body: body })
    .where('receiver_id', '=', claim.receiver_id)
    .where('idem_key', '=', claim.idem_key)
    .where('locked_until', '=', claim.locked_until)
    .where('response_status', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Frees the key of a request that failed, unless its claim was taken over. */
export async function releaseIdempotencyKey(db: Kysely<DB>, claim: IdempotencyRecord): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('receiver_id', '=', claim.receiver_id)
    .where('idem_key', '=', claim.idem_key)
    .where('locked_until', '=', claim.locked_until)
    .where('response_status', 'is', null)
    .execute();
}

export async function pruneIdempotencyKeys(db: Kysely<DB>, now: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).execute();
}
