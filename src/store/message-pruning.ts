// Removes finished messages and their attempt logs, a batch per transaction (app/prune-messages.ts).
import type { Kysely } from 'kysely';
import { dialectOf } from './database.js';
import type { DB } from './schema.js';
import { inTransaction } from './transaction.js';

/**
 * Up to `limit` messages that are no longer pending and whose latest change (updated_at) is before
 * `before`, with their attempts; how many went. updated_at is never before created_at, so the
 * redundant bound on created_at lets the scan walk the `messages_created` index from its oldest
 * end instead of the whole table. On PostgreSQL the rows are locked with SKIP LOCKED: a resend or a
 * claim holding one keeps it, and it is looked at again next time.
 */
export async function pruneMessageBatch(db: Kysely<DB>, before: number, limit: number): Promise<number> {
  return inTransaction(db, async (trx) => {
    const rows = await trx
      .selectFrom('messages')
      .select('message_id')
      .where('created_at', '<', before)
      .where('updated_at', '<', before)
      .where('status', '<>', 'pending')
      .orderBy('created_at')
      .limit(limit)
      .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate().skipLocked())
      .execute();
    const ids = rows.map((row) => row.message_id);
    if (ids.length === 0) return 0;
    await trx.deleteFrom('message_attempts').where('message_id', 'in', ids).execute();
    await trx.deleteFrom('messages').where('message_id', 'in', ids).execute();
    return ids.length;
  });
}
