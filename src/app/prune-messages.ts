// The outbox's retention (domain/message-retention.ts): finished messages and their attempt logs
// older than MESSAGE_RETENTION_DAYS go, a batch at a time (prune-in-batches.ts); pending ones,
// payments and every record of money stay.
import { retentionCutoff } from '../domain/message-retention.js';
import { pruneMessageBatch } from '../store/message-pruning.js';
import type { AppContext } from './context.js';
import { pruneInBatches } from './prune-in-batches.js';

/** Messages per transaction: a thousand commit in milliseconds. */
export const PRUNE_BATCH = 1_000;

/** How many messages went. */
export async function pruneMessages(ctx: Pick<AppContext, 'db' | 'clocks' | 'config'>, batch = PRUNE_BATCH): Promise<number> {
  const before = retentionCutoff(ctx.clocks.now().getTime(), ctx.config.messageRetentionDays);
  return pruneInBatches((limit) => pruneMessageBatch(ctx.db, before, limit), batch);
}
