// The developer clock: read it, or move it forward by a duration or to an instant. The offset is
// shared through the settings table, so the server, the workers and the CLI all follow it (other
// processes pick it up on their next invalidation-feed poll); it never moves backwards.
import { DomainError, fieldError } from '../domain/errors.js';
import { parseDuration } from '../domain/duration.js';
import { CLOCK_OFFSET_SETTING } from '../runtime/clock.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { hasProductionAccounts } from '../store/merchants.js';
import { lockSetting } from '../store/setting-lock.js';
import { writeSetting } from '../store/settings.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

export type ClockMove = { advance: string } | { to: Date };

export async function moveClock(ctx: AppContext, move: ClockMove): Promise<Date> {
  let advanceMs: number | undefined;
  if ('advance' in move) {
    const parsed = parseDuration(move.advance);
    if (!parsed.ok) throw fieldError('advance', parsed.reason);
    advanceMs = parsed.ms;
  }
  // The clock is the installation's: moved, it would also expire production payments, spend their
  // notification retries and age their tokens.
  if (await hasProductionAccounts(ctx.db)) {
    throw new DomainError('forbidden', 'The developer clock cannot move on an installation that has production accounts');
  }
  const offset = await inTransaction(ctx.db, async (trx) => {
    const stored = Number(await lockSetting(trx, CLOCK_OFFSET_SETTING, '0'));
    // This process may have seen a later offset than the row shows only if the row was reset by hand; never go back.
    const current = Math.max(stored, ctx.clock.offsetMs);
    const wall = wallClockMs(ctx.clock);
    let next: number;
    if (advanceMs !== undefined) next = current + advanceMs;
    else {
      const target = (move as { to: Date }).to.getTime();
      if (target < wall + current) throw fieldError('to', `must not be before the current time ${new Date(wall + current).toISOString()}`);
      next = target - wall;
    }
    await writeSetting(trx, CLOCK_OFFSET_SETTING, String(next));
    return next;
  });
  ctx.clock.setOffset(offset);
  return ctx.clock.now();
}
