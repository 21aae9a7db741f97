// The outbox's retention (domain/message-retention.ts): finished messages and their attempt logs
// older than MESSAGE_RETENTION_DAYS go, a batch at a time; pending ones, payments and every
// record of money stay.
import { retentionCutoff } from '../domain/message-retention.js';
import { pruneMessageBatch } from '../store/message-pruning.js';
import type { AppContext } from './context.js';

/**
 * Messages per transaction. One DELETE of a year's messages would hold its row locks (and, on
 * SQLite, the database's only write lock, which every create and claim waits for) until millions
 * of rows and their attempts were gone, write it all to the WAL at once (a standby falls behind by
 * as much) and undo it all on any failure; a thousand at a time commits in milliseconds and lets
 * the writes of the API and the worker in between.
 */
export const PRUNE_BATCH = 1_000;

/** How many messages went. */
export async function pruneMessages(ctx: Pick<AppContext, 'db' | 'clocks' | 'config'>, batch = PRUNE_BATCH): Promise<number> {
  // The installation's clock, not an account's: retention is the operator's promise about its own
  // storage and its own record-keeping, in the installation's time. Records are dated on their
  // account's clock, which in developer mode only ever runs ahead of the installation's, so an
  // account's records read younger here and are kept at least as long, never pruned early.
  const before = retentionCutoff(ctx.clocks.now().getTime(), ctx.config.messageRetentionDays);
  let pruned = 0;
  for (;;) {
    const removed = await pruneMessageBatch(ctx.db, before, batch);
    pruned += removed;
    if (removed < batch) return pruned;
    // Between batches the process's event loop serves its requests too.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
