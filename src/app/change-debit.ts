// THE place a debit moves: the transition table (domain/debit-status.ts) decides the move, the row
// changes only if it is still in the state the caller saw (compare-and-set: a bank's answer is
// applied once, whichever process gets it), and the message the move sends commits with it. One
// debit, or a batch of them in one transaction (the job's claims and the answers to a bank's batch).
import { DEBIT_EVENT_MESSAGES } from '../domain/automatic-payment-messages.js';
import type { Debit, DebitState } from '../domain/debit.js';
import { type DebitChange, debitMove } from '../domain/debit-status.js';
import { moveDebits } from '../store/debits.js';
import { findPaymentsByIds } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

export interface DebitChangeOf {
  debit: Debit;
  /** The state the caller saw it in. */
  from: DebitState;
  change: DebitChange;
}

/** The debit after the move, or undefined when it had already left `from` (another process moved it first). */
export async function changeDebit(ctx: AppContext, debit: Debit, from: DebitState, change: DebitChange): Promise<Debit | undefined> {
  return (await changeDebits(ctx, [{ debit, from, change }]))[0];
}

/**
 * The debits after their moves, in the order given, leaving out those that had already left their
 * `from`. Every move is looked up in the table before anything is written: one the table refuses
 * throws IllegalTransition and moves none of the batch.
 */
export async function changeDebits(ctx: AppContext, changes: readonly DebitChangeOf[]): Promise<Debit[]> {
  const planned = changes.map(({ debit, from, change }) => ({
    debit,
    from,
    change,
    move: debitMove(debit, from, change, ctx.clocks.of(debit.receiverId).now()),
  }));
  if (planned.length === 0) return [];
  return inTransaction(ctx.db, async (trx) => {
    const written = await moveDebits(
      trx,
      planned.map(({ debit, from, move }) => ({ debitId: debit.debitId, from, move })),
    );
    const moved = planned
      .filter(({ debit }) => written.has(debit.debitId))
      .map(({ debit, change, move: { at, ...fields } }) => ({ change, debit: { ...debit, ...fields, updatedAt: at } as Debit }));
    const messaged = moved.filter(({ change }) => DEBIT_EVENT_MESSAGES[change.event]);
    if (messaged.length > 0) {
      const payments = await findPaymentsByIds(
        trx,
        messaged.map(({ debit }) => debit.paymentId),
      );
      const outbox = ctx.outbox.collecting();
      for (const { change, debit } of messaged)
        await outbox.write(trx, DEBIT_EVENT_MESSAGES[change.event]!(debit, payments.get(debit.paymentId)?.transactionId ?? ''));
      await outbox.flush(trx);
    }
    return moved.map(({ debit }) => debit);
  });
}
