// What a bank's answer about a debit does, in one transaction: the debit moves through its door
// (compare-and-set from the state it was asked in, so an answer is applied once; a failed one is
// told to the merchant's error_response_url), its payment moves through the transition table, and
// a settled debit's credit goes through reconciliation like any credit (the payment is done and notified).
import type { DebitResult } from '../bank/connector.js';
import type { Debit, DebitState } from '../domain/debit.js';
import type { DebitChange } from '../domain/debit-status.js';
import { canApply, isPayable } from '../domain/payment-status.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { changeDebit } from './change-debit.js';
import { changePayment } from './change-payment.js';
import { type AppContext, withDb } from './context.js';
import { recordCredits } from './record-credits.js';

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
  return inTransaction(ctx.db, async (trx) => {
    const inTrx = withDb(ctx, trx);
    const moved = await changeDebit(inTrx, debit, from, changeOf(result));
    if (!moved) return false;
    if (result.status === 'accepted') await authorize(inTrx, debit);
    // The credit is recorded before the payment is locked, the order in which collect-bank-credits
    // takes them for the same credit: the other order deadlocks the two on PostgreSQL.
    if (result.status === 'settled') await recordCredits(inTrx, [result.credit], debit.bankId);
    if (result.status === 'failed') await fail(inTrx, debit, moved.updatedAt);
    return true;
  });
}

/** The bank has the debit: the payment is verifying until its credit is reconciled. */
async function authorize(ctx: AppContext, debit: Debit): Promise<void> {
  const payment = await findPaymentById(ctx.db, debit.paymentId, { lock: true });
  if (payment && canApply(payment, 'transfer-authorized'))
    await changePayment(ctx, payment.receiverId, payment.paymentId, () => ({ event: 'transfer-authorized' }));
}

/**
 * The payment has no failed status in the contract: it is pending again, expired at this instant
 * so that nobody can pay it, and never done (the debit's move told the merchant why).
 */
async function fail(ctx: AppContext, debit: Debit, at: Date): Promise<void> {
  const payment = await findPaymentById(ctx.db, debit.paymentId, { lock: true });
  if (!payment) return;
  await changePayment(ctx, payment.receiverId, payment.paymentId, (current) => {
    const event = canApply(current, 'transfer-failed') ? 'transfer-failed' : undefined;
    const open = event !== undefined || isPayable(current);
    return { event, fields: open ? { expires_at: at.getTime() } : undefined };
  });
}
