// The payer authorises the transfer at their bank. The attempt is claimed first (authenticated →
// authorizing) so a double submit reaches the bank once, and only while no other attempt of the
// payment waits for its bank, so two tabs cannot pay twice. The bank is asked outside any
// transaction, since a real bank answers over the network, and only once the claim is on disk
// (ask-bank.ts); its answer is then applied.
import { DomainError, fieldError, notFound, stateError } from '../domain/errors.js';
import type { Payment } from '../domain/payment.js';
import { AWAITING_BANK_STATES, isAttemptOpen, payerBlock, type PaymentAttempt } from '../domain/payment-attempt.js';
import type { TransferResult } from '../bank/connector.js';
import { findAttempt, latestAttemptIn } from '../store/attempts.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { applyTransferResult, transferOrder } from './apply-transfer.js';
import { askBankToMoveMoney } from './ask-bank.js';
import { changeAttempt } from './change-attempt.js';
import { type AppContext, withDb } from './context.js';
import { getPayerAttempt } from './payer-payment.js';

export interface AuthorizationOutcome {
  result: TransferResult['status'];
  attempt: PaymentAttempt;
  payment: Payment;
}

export async function authorizeTransfer(ctx: AppContext, attemptId: string, answers: readonly string[]): Promise<AuthorizationOutcome> {
  const { attempt, payment } = await getPayerAttempt(ctx, attemptId);
  const now = ctx.clock.now();
  if (!isAttemptOpen(attempt, now)) throw stateError('This attempt has expired');
  if (attempt.state !== 'authenticated') throw stateError('This transfer was already submitted');
  const block = payerBlock(payment, now);
  if (block) throw stateError(`The payment cannot be paid: ${block}`);
  const connector = ctx.banks.connectorFor(attempt.bankId);
  if (!connector) throw new DomainError('forbidden', 'Quipu has no connection to this bank');
  if (!connector.acceptsAnswers(answers)) throw fieldError('coordinates', 'must be the two digits of each coordinate asked');
  await claimAttempt(ctx, attempt, now);
  const order = transferOrder(attempt, payment, ctx.config.collectionAccount);
  const result = await askBankToMoveMoney(ctx, { orderId: order.orderId, bankId: connector.bankId }, (call) => connector.transfer(order, answers, call));
  await applyTransferResult(ctx, attempt, 'authorizing', result);
  return {
    result: result.status,
    attempt: (await findAttempt(ctx.db, attempt.attemptId))!,
    payment: (await findPaymentById(ctx.db, payment.paymentId)) ?? payment,
  };
}

/**
 * authenticated → authorizing, with the payment locked so that two attempts of one payment are
 * claimed one after the other: the second sees the first waiting for its bank and is refused
 * (a unique index on the waiting attempts says the same in the database).
 */
async function claimAttempt(ctx: AppContext, attempt: PaymentAttempt, now: Date): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const payment = await findPaymentById(trx, attempt.paymentId, { lock: true });
    if (!payment) throw notFound('Payment');
    const block = payerBlock(payment, now);
    if (block) throw stateError(`The payment cannot be paid: ${block}`);
    const waiting = await latestAttemptIn(trx, attempt.paymentId, AWAITING_BANK_STATES);
    if (waiting && waiting.attemptId !== attempt.attemptId) throw new DomainError('conflict', 'Another transfer of this payment is waiting for its bank');
    if (!(await changeAttempt(withDb(ctx, trx), attempt, 'authenticated', { event: 'claimed' }))) {
      throw stateError('This transfer was already submitted');
    }
  });
}
