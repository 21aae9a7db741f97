// Each account's own clock (developer mode): its offset from real time, null while it follows the
// installation's clock, and the version every move or reset counts up.
import type { Kysely } from 'kysely';
import { dialectOf } from './database.js';
import type { DB } from './schema.js';

export interface StoredAccountClock {
  receiverId: number;
  offsetMs: number | null;
  version: number;
}

const toClock = (row: { receiver_id: number; clock_offset_ms: number | null; clock_version: number }): StoredAccountClock => ({
  receiverId: Number(row.receiver_id),
  offsetMs: row.clock_offset_ms === null ? null : Number(row.clock_offset_ms),
  version: Number(row.clock_version),
});

/** The accounts that run on a clock of their own. */
export async function ownAccountClocks(db: Kysely<DB>): Promise<StoredAccountClock[]> {
  const rows = await db.selectFrom('merchants').select(['receiver_id', 'clock_offset_ms', 'clock_version']).where('clock_offset_ms', 'is not', null).execute();
  return rows.map(toClock);
}

/** One account's clock, locked until the transaction ends when `lock` (PostgreSQL; SQLite's writer is alone). */
export async function readAccountClock(db: Kysely<DB>, receiverId: number, lock = false): Promise<StoredAccountClock | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select(['receiver_id', 'clock_offset_ms', 'clock_version'])
    .where('receiver_id', '=', receiverId)
    .$if(lock && dialectOf(db) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  return row && toClock(row);
}

/** Sets an account's offset (null: back to the installation's clock), counting a new version. */
export async function writeAccountClock(db: Kysely<DB>, receiverId: number, offsetMs: number | null): Promise<StoredAccountClock> {
  const row = await db
    .updateTable('merchants')
    .set((eb) => ({ clock_offset_ms: offsetMs, clock_version: eb('clock_version', '+', 1) }))
    .where('receiver_id', '=', receiverId)
    .returning(['receiver_id', 'clock_offset_ms', 'clock_version'])
    .executeTakeFirstOrThrow();
  return toClock(row);
}
