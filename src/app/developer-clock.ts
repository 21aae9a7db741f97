// The developer clocks: the installation's, and each developer-mode account's own. Read one, move it
// forward by a duration or to an instant, or reset it. Offsets are shared through the database, so
// the server, the workers and the CLI all follow them (other processes pick a change up on their
// next invalidation-feed poll). Moves only go forward.
//
// An account that never moved its clock follows the installation's. Moving an account's clock moves
// only its records' time (expiries, attempts, reminders, retries, debits, deliveries, tokens): every
// other account is unaffected, so parallel test suites each own a clock. Resetting it returns the
// account to the installation's clock and brings its records' dates back by the same amount, so that
// each record keeps its age: what expired still has, what was due in five minutes still is.
import type { Kysely } from 'kysely';
import { DomainError, fieldError } from '../domain/errors.js';
import { parseDuration } from '../domain/duration.js';
import { ACCOUNT_CLOCK_TOPIC } from '../runtime/account-clock-feed.js';
import { CLOCK_EPOCH_SETTING, CLOCK_OFFSET_SETTING } from '../runtime/clock.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { readAccountClock, writeAccountClock } from '../store/account-clocks.js';
import { shiftAccountDates } from '../store/account-records.js';
import { wakeAccount } from '../store/account-wakes.js';
import { bringSchedulesBack } from '../store/clock-reset.js';
import { findMerchantRow, hasProductionAccounts } from '../store/merchants.js';
import type { DB } from '../store/schema.js';
import { lockSetting } from '../store/setting-lock.js';
import { readSetting, writeSetting } from '../store/settings.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

export type ClockMove = { advance: string } | { to: Date };

/**
 * How far a developer clock may run ahead of real time: moved centuries ahead, every payment created
 * on it would expire past the dates a payment may carry, and its creates would fail.
 */
export const MAX_CLOCK_AHEAD_MS = 10 * 366 * 24 * 3_600_000;

/** Reads the move (refusing a bad one before anything is locked). */
function readMove(move: ClockMove): { advanceMs: number } | { to: Date } {
  if (!('advance' in move)) return move;
  const parsed = parseDuration(move.advance);
  if (!parsed.ok) throw fieldError('advance', parsed.reason);
  return { advanceMs: parsed.ms };
}

/** The offset a clock at `currentMs` ahead of real time has after the move. */
function movedOffset(move: { advanceMs: number } | { to: Date }, currentMs: number, wallMs: number): number {
  let next: number;
  if ('advanceMs' in move) next = currentMs + move.advanceMs;
  else {
    const target = move.to.getTime();
    if (target < wallMs + currentMs) throw fieldError('to', `must not be before the current time ${new Date(wallMs + currentMs).toISOString()}`);
    next = target - wallMs;
  }
  if (next > MAX_CLOCK_AHEAD_MS)
    throw fieldError(
      'advanceMs' in move ? 'advance' : 'to',
      `must keep the clock within 10 years of real time (until ${new Date(wallMs + MAX_CLOCK_AHEAD_MS).toISOString()})`,
    );
  return next;
}

/** The shared offset, locked until the transaction ends, and the epoch it belongs to. */
async function lockClock(trx: Kysely<DB>): Promise<{ offset: number; epoch: number }> {
  const offset = Number(await lockSetting(trx, CLOCK_OFFSET_SETTING, '0'));
  return { offset, epoch: Number((await readSetting(trx, CLOCK_EPOCH_SETTING)) ?? 0) };
}

/** Moves the installation's clock, which every account without a clock of its own follows. */
export async function moveClock(ctx: AppContext, move: ClockMove): Promise<Date> {
  const read = readMove(move);
  // The installation's clock would also expire production payments, spend their notification
  // retries and age their tokens.
  if (await hasProductionAccounts(ctx.db)) {
    throw new DomainError('forbidden', 'The developer clock cannot move on an installation that has production accounts');
  }
  const clocks = ctx.clocks;
  const moved = await inTransaction(ctx.db, async (trx) => {
    const stored = await lockClock(trx);
    // Within one epoch this process may have seen a later offset than the row shows only if the
    // row was set back by hand; never go back. Of a later epoch (a reset it has not read yet), the row is right.
    const current = stored.epoch === clocks.epoch ? Math.max(stored.offset, clocks.offsetMs) : stored.offset;
    const next = movedOffset(read, current, wallClockMs(clocks));
    await writeSetting(trx, CLOCK_OFFSET_SETTING, String(next));
    return { offset: next, epoch: stored.epoch };
  });
  clocks.setOffset(moved.offset, moved.epoch);
  return clocks.now();
}

/**
 * The installation's clock back to real time. Allowed on any installation with the sandbox on,
 * production accounts or not: going back to real time is what such an installation needs. Records
 * written while the clock was ahead keep their times; job runs and message deliveries due later are
 * brought back with it (store/clock-reset.ts).
 */
export async function resetClock(ctx: AppContext): Promise<Date> {
  const clocks = ctx.clocks;
  const epoch = await inTransaction(ctx.db, async (trx) => {
    const stored = await lockClock(trx);
    await bringSchedulesBack(trx, stored.offset, wallClockMs(clocks));
    await writeSetting(trx, CLOCK_OFFSET_SETTING, '0');
    await writeSetting(trx, CLOCK_EPOCH_SETTING, String(stored.epoch + 1));
    return stored.epoch + 1;
  });
  clocks.setOffset(0, epoch);
  return clocks.now();
}

/** The account's clock as it now reads, and whether it is the account's own. */
export function accountClock(ctx: AppContext, receiverId: number): { now: Date; offsetMs: number; own: boolean } {
  const clock = ctx.clocks.of(receiverId);
  return { now: clock.now(), offsetMs: clock.offsetMs, own: ctx.clocks.hasOwnClock(receiverId) };
}

async function developerAccount(trx: Kysely<DB>, receiverId: number): Promise<void> {
  const row = await findMerchantRow(trx, receiverId);
  if (!row) throw new DomainError('not_found', 'No such account');
  // A production account's dates are its payers' and its bank's: they never move.
  if (!row.developer) throw new DomainError('forbidden', "A production account's clock cannot move");
}

/** Moves one developer-mode account's clock; every other account keeps its own time. */
export async function moveAccountClock(ctx: AppContext, receiverId: number, move: ClockMove): Promise<Date> {
  const read = readMove(move);
  const clocks = ctx.clocks;
  await ctx.feed.transaction(ctx.db, async (trx, publish) => {
    await developerAccount(trx, receiverId);
    const stored = await readAccountClock(trx, receiverId, true);
    const current = stored?.offsetMs ?? clocks.offsetMs;
    const written = await writeAccountClock(trx, receiverId, movedOffset(read, current, wallClockMs(clocks)));
    // The account's work runs at once on its new time: its reminders, debits and deliveries fell
    // due by the move, not by the installation's clock. No other account's, nor the installation's
    // housekeeping (jobs/jobs.ts, perAccount).
    await wakeAccount(trx, receiverId);
    await publish(ACCOUNT_CLOCK_TOPIC, String(receiverId));
    clocks.setAccount(receiverId, written);
  });
  return clocks.of(receiverId).now();
}

/** Returns an account to the installation's clock, its records' dates brought back by the same amount. */
export async function resetAccountClock(ctx: AppContext, receiverId: number): Promise<Date> {
  const clocks = ctx.clocks;
  await ctx.feed.transaction(ctx.db, async (trx, publish) => {
    await developerAccount(trx, receiverId);
    const stored = await readAccountClock(trx, receiverId, true);
    if (stored?.offsetMs !== null && stored?.offsetMs !== undefined) await shiftAccountDates(trx, receiverId, clocks.offsetMs - stored.offsetMs);
    const written = await writeAccountClock(trx, receiverId, null);
    await publish(ACCOUNT_CLOCK_TOPIC, String(receiverId));
    clocks.setAccount(receiverId, written);
  });
  return clocks.of(receiverId).now();
}
