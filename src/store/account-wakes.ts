// Accounts whose work is due at once (developer mode: a move of an account's clock, a restore of its
// snapshot), waiting for a job runner to run the per-account jobs for that account alone
// (jobs/runner.ts). A runner holds a wake with a lease, as it holds a job, so that one runner at a
// time runs an account's work and a runner that dies mid-run leaves it to another once the lease ends.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

export interface AccountWake {
  receiverId: number;
  /** Counts the account's wakes: a run ends the wake only if no other came meanwhile. */
  version: number;
}

/** The account's work is due at once; woken again while a run holds it, it runs again after that run. */
export async function wakeAccount(db: Kysely<DB>, receiverId: number): Promise<void> {
  await db
    .insertInto('account_wakes')
    .values({ receiver_id: receiverId, version: 1, lease_id: null, locked_until: null })
    .onConflict((oc) => oc.column('receiver_id').doUpdateSet({ version: sql<number>`account_wakes.version + 1` }))
    .execute();
}

/** Woken accounts no runner holds (a lease that ended before `wallNow` is free): a read, so an idle poll writes nothing. */
export async function freeAccountWakes(db: Kysely<DB>, wallNow: number, limit: number): Promise<AccountWake[]> {
  const rows = await db
    .selectFrom('account_wakes')
    .select(['receiver_id', 'version'])
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', wallNow)]))
    .orderBy('receiver_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ receiverId: Number(row.receiver_id), version: Number(row.version) }));
}

/** Takes the account's wake if it is free; the wake as taken, or undefined when another runner holds it (or it ended). */
export async function claimAccountWake(
  db: Kysely<DB>,
  claim: { receiverId: number; leaseId: string; wallNow: number; leaseUntil: number },
): Promise<AccountWake | undefined> {
  const row = await db
    .updateTable('account_wakes')
    .set({ lease_id: claim.leaseId, locked_until: claim.leaseUntil })
    .where('receiver_id', '=', claim.receiverId)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', claim.wallNow)]))
    .returning(['receiver_id', 'version'])
    .executeTakeFirst();
  return row && { receiverId: Number(row.receiver_id), version: Number(row.version) };
}

/** The run of a wake taken with `leaseId` is over: the wake ends, or, woken again since, it is free for the next run. */
export async function endAccountWake(db: Kysely<DB>, wake: AccountWake, leaseId: string): Promise<void> {
  const ended = await db
    .deleteFrom('account_wakes')
    .where('receiver_id', '=', wake.receiverId)
    .where('lease_id', '=', leaseId)
    .where('version', '=', wake.version)
    .executeTakeFirst();
  if (Number(ended.numDeletedRows) === 1) return;
  await db
    .updateTable('account_wakes')
    .set({ lease_id: null, locked_until: null })
    .where('receiver_id', '=', wake.receiverId)
    .where('lease_id', '=', leaseId)
    .execute();
}
