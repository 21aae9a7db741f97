// Housekeeping every serving process runs: each minute, transfers a stopped process left waiting
// for their bank, the banks' answers about the transfers they left uncertain, and the credits the
// banks booked on the collection account; each hour, expired idempotency keys, expired OAuth
// tokens, and authorization flows older than a day that no live token refers to.
import { collectBankCredits } from '../app/collect-bank-credits.js';
import type { AppContext } from '../app/context.js';
import { recoverStaleTransfers } from '../app/recover-stale-transfers.js';
import { resolveUncertainTransfers } from '../app/resolve-transfers.js';
import { pruneIdempotencyKeys } from '../store/idempotency.js';
import { deleteStaleAuthorizations } from '../store/oauth-authorizations.js';
import { deleteExpiredTokens } from '../store/oauth-tokens.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const FLOW_RETENTION_MS = 24 * HOUR_MS;

export async function pruneExpired(ctx: AppContext): Promise<void> {
  const now = ctx.clock.now().getTime();
  await pruneIdempotencyKeys(ctx.db, now);
  await deleteExpiredTokens(ctx.db, now);
  await deleteStaleAuthorizations(ctx.db, now - FLOW_RETENTION_MS);
}

const TASKS: ReadonlyArray<[name: string, everyMs: number, run: (ctx: AppContext) => Promise<unknown>]> = [
  ['recover stale transfers', MINUTE_MS, recoverStaleTransfers],
  ['resolve uncertain transfers', MINUTE_MS, resolveUncertainTransfers],
  ['collect bank credits', MINUTE_MS, collectBankCredits],
  ['prune expired', HOUR_MS, pruneExpired],
];

/** Runs every task now and then at its interval; the returned stop waits for the runs in progress. */
export function startMaintenance(ctx: AppContext): () => Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();
  for (const [name, everyMs, task] of TASKS) {
    const run = () => {
      const done: Promise<void> = task(ctx)
        .then(() => undefined, (error) => ctx.log.error({ err: error }, `maintenance failed: ${name}`))
        .finally(() => running.delete(done));
      running.add(done);
    };
    run();
    timers.push(setInterval(run, everyMs).unref());
  }
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.all(running);
  };
}
