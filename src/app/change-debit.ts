// THE place a debit moves: the transition table (domain/debit-status.ts) decides the move, the row
// changes only if it is still in the state the caller saw (compare-and-set: a bank's answer is
// applied once, whichever process gets it), and the message the move sends commits with it.
import { DEBIT_EVENT_MESSAGES } from '../domain/automatic-payment-messages.js';
import type { Debit, DebitState } from '../domain/debit.js';
import { type DebitChange, debitMove } from '../domain/debit-status.js';
import { moveDebit } from '../store/debits.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

/** The debit after the move, or undefined when it had already left `from` (another process moved it first). */
export async function changeDebit(ctx: AppContext, debit: Debit, from: DebitState, change: DebitChange): Promise<Debit | undefined> {
  const move = debitMove(debit, from, change, ctx.clocks.of(debit.receiverId).now());
  const message = DEBIT_EVENT_MESSAGES[change.event];
  return inTransaction(ctx.db, async (trx) => {
    if (!(await moveDebit(trx, debit.debitId, from, move))) return undefined;
    const { at, ...fields } = move;
    const moved: Debit = { ...debit, ...fields, updatedAt: at };
    if (message) {
      const payment = await findPaymentById(trx, debit.paymentId);
      await ctx.outbox.write(trx, message(moved, payment?.transactionId ?? ''));
    }
    return moved;
  });
}
