// What a bank's answer about a debit does, in one transaction: the debit moves (compare-and-set
// from the state it was asked in, so an answer is applied once), its payment moves through the
// transition table, a settled debit's credit goes through reconciliation like any credit (the
// payment is done and notified), and a failed one is told to the merchant's error_response_url.
import type { DebitResult } from '../bank/connector.js';
import { chargeErrorNotification } from '../domain/automatic-payment-messages.js';
import { type Debit, DEBIT_QUESTION_RETRY_MS, type DebitState } from '../domain/debit.js';
import { canApply, isPayable } from '../domain/payment-status.js';
import { moveDebit } from '../store/debits.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { changePayment } from './change-payment.js';
import { type AppContext, withDb } from './context.js';
import { recordCredits } from './record-credits.js';

/** Returns false when the debit had already left `from` (another process applied an answer first). */
export async function applyDebitResult(ctx: AppContext, debit: Debit, from: DebitState, result: DebitResult): Promise<boolean> {
  return inTransaction(ctx.db, async (trx) => {
    const inTrx = withDb(ctx, trx);
    const now = ctx.clock.now();
    const at = now.getTime();
    const move = (update: Parameters<typeof moveDebit>[3]) => moveDebit(trx, debit.debitId, from, { ...update, updated_at: at });
    switch (result.status) {
      case 'uncertain':
        return move({ state: 'uncertain', next_check_at: at + DEBIT_QUESTION_RETRY_MS });
      case 'unknown':
        // The bank never received it: submitting the same order again cannot debit twice.
        return move({ state: 'due', next_check_at: at });
      case 'accepted':
        if (!(await move({ state: 'submitted', submitted_at: debit.submittedAt?.getTime() ?? at, next_check_at: result.settlesAt.getTime() }))) return false;
        await authorize(inTrx, debit);
        return true;
      case 'settled':
        if (!(await move({ state: 'settled', submitted_at: debit.submittedAt?.getTime() ?? at, settled_at: at }))) return false;
        // The credit is recorded before the payment is locked, the order in which collect-bank-credits
        // takes them for the same credit: the other order deadlocks the two on PostgreSQL.
        await recordCredits(inTrx, [result.credit], debit.bankId);
        return true;
      case 'failed': {
        if (!(await move({ state: 'failed', failure: result.message }))) return false;
        await fail(inTrx, debit, result.message, at);
        return true;
      }
    }
  });
}

/** The bank has the debit: the payment is verifying until its credit is reconciled. */
async function authorize(ctx: AppContext, debit: Debit): Promise<void> {
  const payment = await findPaymentById(ctx.db, debit.paymentId, { lock: true });
  if (payment && canApply(payment, 'transfer-authorized')) await changePayment(ctx, payment.receiverId, payment.paymentId, () => ({ event: 'transfer-authorized' }));
}

/**
 * The payment has no failed status in the contract: it is pending again, expired at this instant
 * so that nobody can pay it, and never done. The merchant hears why at error_response_url.
 */
async function fail(ctx: AppContext, debit: Debit, message: string, at: number): Promise<void> {
  const payment = await findPaymentById(ctx.db, debit.paymentId, { lock: true });
  if (!payment) return;
  const changed = await changePayment(ctx, payment.receiverId, payment.paymentId, (current) => {
    const event = canApply(current, 'transfer-failed') ? 'transfer-failed' : undefined;
    const open = event !== undefined || isPayable(current);
    return { event, fields: open ? { expires_at: at } : undefined };
  });
  await ctx.outbox.write(ctx.db, chargeErrorNotification(debit, changed.transactionId ?? '', message));
}
