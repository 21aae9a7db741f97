// THE way a bank is asked anything: a question (who a payer is, what became of an order, which
// credits or mandate changes it booked) is waited for at most BANK_TIMEOUT_MS. Asking it to move
// money (a payer's transfer, or the debit of a charge intent) goes further: the intent is
// committed first, by the caller, and the bank hears of it only once that commit is on disk: on
// SQLite a long-running process commits without flushing and flushes the WAL off the event loop
// (store/wal-sync.ts), and a power loss between a bank's transfer and that flush would erase the
// only record that the bank was asked. An answer arriving after BANK_TIMEOUT_MS is not waited for.
import { answerWithin, NO_ANSWER_IN_TIME } from '../bank/answer-within.js';
import type { BankCall, DebitResult, TransferResult } from '../bank/connector.js';
import { durable } from '../store/database.js';
import { withholdsTransfers } from '../store/sandbox-faults.js';
import type { AppContext } from './context.js';

export { NO_ANSWER_IN_TIME };

const NOT_HELD = async () => false;

/**
 * What a connector is told on every call. The account's faults are applied here, at the door, and
 * read only where they can exist (SANDBOX on, a call about an account) and only when the bank
 * asks: from the database, as every process sees the fault the moment it is set or removed.
 */
function bankCall(ctx: AppContext): BankCall {
  const account = ctx.clock.account;
  const transfersHeld = ctx.config.sandbox && account !== null ? () => withholdsTransfers(ctx.db, account) : NOT_HELD;
  return { now: ctx.clock.now(), account, time: ctx.clocks.scanTime(), transfersHeld };
}

/** The bank's answer to `question`, or NO_ANSWER_IN_TIME once BANK_TIMEOUT_MS passed without one. */
export function askBank<T>(ctx: AppContext, question: (call: BankCall) => Promise<T>): Promise<T | typeof NO_ANSWER_IN_TIME> {
  return answerWithin(question(bankCall(ctx)), ctx.config.bankTimeoutMs);
}

/** What a bank that could not be reached (or broke off) answered: it may have moved the money all the same, only the bank can say. */
export const NO_ANSWER = { status: 'uncertain' } as const satisfies TransferResult & DebitResult;

/** What the log says of an order, or of the orders of a batch. */
export type MoneyOrder = { bankId: string } & ({ orderId: string } | { orderIds: readonly string[] });

/**
 * The bank's answer to `send`. A failed or unanswered call must not leave the order waiting for
 * good: it is uncertain, and the bank's later answer (housekeeping asks it) or its credit on the
 * collection account decides it.
 */
export async function askBankToMoveMoney<R extends TransferResult | DebitResult | readonly DebitResult[]>(
  ctx: AppContext,
  order: MoneyOrder,
  send: (call: BankCall) => Promise<R>,
): Promise<R | typeof NO_ANSWER> {
  // Inside a transaction the intent would not even be committed, and there is no flush to wait for.
  if (ctx.db.isTransaction) throw new Error('a bank is asked to move money only after the commit that records the intent');
  await durable(ctx.db);
  try {
    const answer = await askBank(ctx, send);
    if (answer !== NO_ANSWER_IN_TIME) return answer;
    ctx.log.error(
      { ...order, timeoutMs: ctx.config.bankTimeoutMs },
      'the bank did not answer in time; the order is uncertain until the bank confirms or fails it',
    );
  } catch (error) {
    ctx.log.error({ err: error, ...order }, 'the bank did not answer; the order is uncertain until the bank confirms or fails it');
  }
  return NO_ANSWER;
}
