// What a bank's answer to a transfer does, in one transaction: the attempt moves through its door
// (compare-and-set, so a bank answer is applied once), the payment moves through the transition table, and an
// executed transfer's credit goes through reconciliation like any credit an operator reports.
import type { TransferOrder, TransferResult } from '../bank/connector.js';
import type { CollectionAccount } from '../domain/collection-account.js';
import { stateError } from '../domain/errors.js';
import type { Payment } from '../domain/payment.js';
import type { AttemptChange } from '../domain/attempt-status.js';
import type { AttemptState, PaymentAttempt } from '../domain/payment-attempt.js';
import { canApply, type PaymentEvent } from '../domain/payment-status.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { changeAttempt } from './change-attempt.js';
import { changePayment } from './change-payment.js';
import { type AppContext, withDb } from './context.js';
import { recordCredits } from './record-credits.js';

export function transferOrder(attempt: PaymentAttempt, payment: Payment, destination: CollectionAccount): TransferOrder {
  return {
    orderId: attempt.attemptId,
    reference: payment.paymentId,
    account: payment.collectAccountUuid,
    destination,
    amount: payment.amount,
    currency: payment.currency,
    payer: { personalIdentifier: attempt.personalIdentifier!, accountNumber: attempt.accountNumber!, holderName: attempt.payerName! },
    payerEmail: attempt.payerEmail,
  };
}

/** The move a bank's answer makes of the attempt. */
function changeOf(result: TransferResult): AttemptChange {
  if (result.status === 'failed') return { event: 'failed', message: result.message };
  return { event: result.status === 'executed' ? 'executed' : 'unanswered' };
}

/** Moves the payment if its state still allows the event (another attempt or the merchant may have settled it meanwhile). */
async function moveIfAllowed(ctx: AppContext, payment: Payment | undefined, event: PaymentEvent): Promise<void> {
  if (payment && canApply(payment, event)) await changePayment(ctx, payment.receiverId, payment.paymentId, () => ({ event }));
}

export async function applyTransferResult(ctx: AppContext, attempt: PaymentAttempt, from: AttemptState, result: TransferResult): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const inTrx = withDb(ctx, trx);
    const moved = await changeAttempt(inTrx, attempt, from, changeOf(result));
    if (!moved) throw stateError('The bank already answered for this transfer');
    const payment = await findPaymentById(trx, attempt.paymentId, { lock: true });
    if (result.status === 'failed') return moveIfAllowed(inTrx, payment, 'transfer-failed');
    await moveIfAllowed(inTrx, payment, 'transfer-authorized');
    // The money moved even if the payment was settled otherwise meanwhile: the credit is recorded
    // all the same, and reconciliation keeps it unmatched for an operator in that case.
    if (result.status === 'executed') await recordCredits(inTrx, [result.credit], attempt.bankId);
  });
}
