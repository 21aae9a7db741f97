// The request log's retention (REQUEST_LOG_RETENTION_DAYS): rows answered longer ago go, a batch
// at a time (prune-in-batches.ts), wherever they are kept (app/request-records.ts); the log stream's
// lines are its collector's to keep.
import type { AppContext } from './context.js';
import { pruneInBatches } from './prune-in-batches.js';

const DAY_MS = 86_400_000;
const BATCH = 5_000;

/** How many rows went. */
export async function pruneRequestLogs(ctx: Pick<AppContext, 'requestRecords' | 'clocks' | 'config'>): Promise<number> {
  const kept = ctx.requestRecords.kept;
  if (!kept) return 0;
  const before = ctx.clocks.now().getTime() - ctx.config.requestLogRetentionDays * DAY_MS;
  return pruneInBatches((limit) => kept.prune(before, limit), BATCH);
}
