// The developer clock: read it, move it forward by a duration or to an instant, or reset it to real
// time. The offset is shared through the settings table, so the server, the workers and the CLI
// all follow it (other processes pick it up on their next invalidation-feed poll). Moves only go
// forward; a reset goes back to real time and starts a new epoch, which every process follows.
import type { Kysely } from 'kysely';
import { DomainError, fieldError } from '../domain/errors.js';
import { parseDuration } from '../domain/duration.js';
import { CLOCK_EPOCH_SETTING, CLOCK_OFFSET_SETTING } from '../runtime/clock.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { bringSchedulesBack } from '../store/clock-reset.js';
import { hasProductionAccounts } from '../store/merchants.js';
import type { DB } from '../store/schema.js';
import { lockSetting } from '../store/setting-lock.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

export type ClockMove = { advance: string } | { to: Date };

/**
 * How far the developer clock may run ahead of real time. The clock is the installation's (until
 * each account has its own): moved centuries ahead, every payment created on it would expire past
 * the dates a payment may carry, and creates would fail for every account.
 */
export const MAX_CLOCK_AHEAD_MS = 10 * 366 * 24 * 3_600_000;

/** The shared offset, locked until the transaction ends, and the epoch it belongs to. */
async function lockClock(trx: Kysely<DB>): Promise<{ offset: number; epoch: number }> {
  const offset = Number(await lockSetting(trx, CLOCK_OFFSET_SETTING, '0'));
  return { offset, epoch: Number((await readSetting(trx, CLOCK_EPOCH_SETTING)) ?? 0) };
}

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
  const moved = await inTransaction(ctx.db, async (trx) => {
    const stored = await lockClock(trx);
    // Within one epoch this process may have seen a later offset than the row shows only if the
    // row was set back by hand; never go back. Of a later epoch (a reset it has not read yet), the row is right.
    const current = stored.epoch === ctx.clock.epoch ? Math.max(stored.offset, ctx.clock.offsetMs) : stored.offset;
    const wall = wallClockMs(ctx.clock);
    let next: number;
    if (advanceMs !== undefined) next = current + advanceMs;
    else {
      const target = (move as { to: Date }).to.getTime();
      if (target < wall + current) throw fieldError('to', `must not be before the current time ${new Date(wall + current).toISOString()}`);
      next = target - wall;
    }
    if (next > MAX_CLOCK_AHEAD_MS)
      throw fieldError(
        advanceMs !== undefined ? 'advance' : 'to',
        `must keep the clock within 10 years of real time (until ${new Date(wall + MAX_CLOCK_AHEAD_MS).toISOString()})`,
      );
    await writeSetting(trx, CLOCK_OFFSET_SETTING, String(next));
    return { offset: next, epoch: stored.epoch };
  });
  ctx.clock.setOffset(moved.offset, moved.epoch);
  return ctx.clock.now();
}

/**
 * Back to real time. Allowed on any installation with the sandbox on, production accounts or not:
 * going back to real time is what such an installation needs. Records written while the clock was
 * ahead keep their times; job runs and message deliveries due later are brought back with it
 * (store/clock-reset.ts).
 */
export async function resetClock(ctx: AppContext): Promise<Date> {
  const epoch = await inTransaction(ctx.db, async (trx) => {
    const stored = await lockClock(trx);
    await bringSchedulesBack(trx, stored.offset, wallClockMs(ctx.clock));
    await writeSetting(trx, CLOCK_OFFSET_SETTING, '0');
    await writeSetting(trx, CLOCK_EPOCH_SETTING, String(stored.epoch + 1));
    return stored.epoch + 1;
  });
  ctx.clock.setOffset(0, epoch);
  return ctx.clock.now();
}
