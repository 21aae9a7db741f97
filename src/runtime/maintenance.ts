// Housekeeping every process may run, once an hour: expired idempotency keys, expired OAuth
// tokens, and authorization flows older than a day that no live token refers to.
import type { AppContext } from '../app/context.js';
import { pruneIdempotencyKeys } from '../store/idempotency.js';
import { deleteStaleAuthorizations } from '../store/oauth-authorizations.js';
import { deleteExpiredTokens } from '../store/oauth-tokens.js';

const EVERY_MS = 3_600_000;
const FLOW_RETENTION_MS = 24 * 3_600_000;

export async function runMaintenance(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now().getTime();
  await pruneIdempotencyKeys(ctx.db, now);
  await deleteExpiredTokens(ctx.db, now);
  await deleteStaleAuthorizations(ctx.db, now - FLOW_RETENTION_MS);
}

/** Runs now and then hourly; the returned stop waits for a run in progress. */
export function startMaintenance(ctx: AppContext): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = runMaintenance(ctx).catch((error) => ctx.log.error({ err: error }, 'maintenance failed'));
  };
  run();
  const timer = setInterval(run, EVERY_MS).unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
