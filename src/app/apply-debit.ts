// What a bank's answers about debits do, in one transaction: each debit moves through its door
// (compare-and-set from the state it was asked in, so an answer is applied once; a failed one is
// told to the merchant's error_response_url), its payment moves through the transition table, and
// a settled debit's credit goes through reconciliation like any credit (the payment is done and
// notified). A bank's batch of answers costs a few statements, not a few per debit.
import type { DebitResult } from '../bank/connector.js';
import type { Debit, DebitState } from '../domain/debit.js';
import type { DebitChange } from '../domain/debit-status.js';
import { canApply, isPayable } from '../domain/payment-status.js';
import { lockPaymentRows } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { changeDebits } from './change-debit.js';
import { HeldPayments } from './change-payment.js';
import { type AppContext, withDb } from './context.js';
import { recordCredits } from './record-credits.js';

export interface DebitAnswer {
  debit: Debit;
  /** The state the debit was in when its bank was asked. */
  from: DebitState;
  result: DebitResult;
}

/** The move a bank's answer makes of the debit. */
function changeOf(result: DebitResult): DebitChange {
  switch (result.status) {
    case 'uncertain':
      return { event: 'unanswered' };
    case 'unknown':
      return { event: 'never-received' };
    case 'accepted':
      return { event: 'accepted', settlesAt: result.settlesAt };
    case 'settled':
      return { event: 'settled' };
    case 'failed':
      return { event: 'failed', message: result.message };
  }
}

/** Returns false when the debit had already left `from` (another process applied an answer first). */
export async function applyDebitResult(ctx: AppContext, debit: Debit, from: DebitState, result: DebitResult): Promise<boolean> {
  return (await applyDebitResults(ctx, [{ debit, from, result }])) === 1;
}

/** Returns how many answers were applied: the others' debits had already left their `from`. */
export async function applyDebitResults(ctx: AppContext, answers: readonly DebitAnswer[]): Promise<number> {
  if (answers.length === 0) return 0;
  return inTransaction(ctx.db, async (trx) => {
    const outbox = ctx.outbox.collecting();
    const inTrx = { ...withDb(ctx, trx), outbox };
    const moved = new Map(
      (
        await changeDebits(
          inTrx,
          answers.map(({ debit, from, result }) => ({ debit, from, change: changeOf(result) })),
        )
      ).map((debit) => [debit.debitId, debit]),
    );
    const applied = answers.filter(({ debit }) => moved.has(debit.debitId));
    // The credits are recorded before the other payments are locked, the order in which
    // collect-bank-credits takes them for the same credits: the other order deadlocks the two on PostgreSQL.
    const credits = new Map<string, DebitAnswer[]>();
    for (const answer of applied)
      if (answer.result.status === 'settled') credits.set(answer.debit.bankId, [...(credits.get(answer.debit.bankId) ?? []), answer]);
    for (const [bankId, settled] of credits)
      await recordCredits(
        inTrx,
        settled.map(({ result }) => (result as Extract<DebitResult, { status: 'settled' }>).credit),
        bankId,
      );
    const others = applied.filter(({ result }) => result.status === 'accepted' || result.status === 'failed');
    if (others.length > 0) {
      const payments = new HeldPayments(
        inTrx,
        await lockPaymentRows(
          trx,
          others.map(({ debit }) => debit.paymentId),
        ),
      );
      for (const { debit, result } of others) {
        if (result.status === 'accepted') authorize(payments, debit);
        else fail(payments, debit, moved.get(debit.debitId)!.updatedAt);
      }
      await payments.write();
    }
    await outbox.flush(trx);
    return applied.length;
  });
}

/** The bank has the debit: the payment is verifying until its credit is reconciled. */
function authorize(payments: HeldPayments, debit: Debit): void {
  const payment = payments.get(debit.paymentId);
  if (payment && canApply(payment, 'transfer-authorized')) payments.change(payment.receiverId, payment.paymentId, () => ({ event: 'transfer-authorized' }));
}

/**
 * The payment has no failed status in the contract: it is pending again, expired at this instant
 * so that nobody can pay it, and never done (the debit's move told the merchant why).
 */
function fail(payments: HeldPayments, debit: Debit, at: Date): void {
  const payment = payments.get(debit.paymentId);
  if (!payment) return;
  payments.change(payment.receiverId, payment.paymentId, (current) => {
    const event = canApply(current, 'transfer-failed') ? 'transfer-failed' : undefined;
    const open = event !== undefined || isPayable(current);
    return { event, fields: open ? { expires_at: at.getTime() } : undefined };
  });
}
