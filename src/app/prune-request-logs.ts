// The request log's retention (REQUEST_LOG_RETENTION_DAYS): rows answered longer ago go, a batch
// per statement so that the writes of the API and the worker get their turns in between.
import { pruneRequestLogBatch } from '../store/request-logs.js';
import type { AppContext } from './context.js';

const DAY_MS = 86_400_000;
const BATCH = 5_000;

/** How many rows went. */
export async function pruneRequestLogs(ctx: Pick<AppContext, 'db' | 'clocks' | 'config'>): Promise<number> {
  // The installation's clock: rows are dated on their account's, which only ever runs ahead of it,
  // so an account's rows read younger here and are kept at least as long, never pruned early.
  const before = ctx.clocks.now().getTime() - ctx.config.requestLogRetentionDays * DAY_MS;
  let pruned = 0;
  let removed: number;
  do {
    removed = await pruneRequestLogBatch(ctx.db, before, BATCH);
    pruned += removed;
    await new Promise((resolve) => setImmediate(resolve));
  } while (removed === BATCH);
  return pruned;
}
