// The request log's retention (REQUEST_LOG_RETENTION_DAYS): rows answered longer ago go, a batch
// at a time (prune-in-batches.ts).
import { pruneRequestLogBatch } from '../store/request-logs.js';
import type { AppContext } from './context.js';
import { pruneInBatches } from './prune-in-batches.js';

const DAY_MS = 86_400_000;
const BATCH = 5_000;

/** How many rows went. */
export async function pruneRequestLogs(ctx: Pick<AppContext, 'db' | 'clocks' | 'config'>): Promise<number> {
  const before = ctx.clocks.now().getTime() - ctx.config.requestLogRetentionDays * DAY_MS;
  return pruneInBatches((limit) => pruneRequestLogBatch(ctx.db, before, limit), BATCH);
}
