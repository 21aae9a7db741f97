// The payer authorises the transfer at their bank. The attempt is claimed first (authenticated →
// authorizing) so a double submit reaches the bank once, and only while no other attempt of the
// payment waits for its bank, so two tabs cannot pay twice. The bank is asked outside any
// transaction, since a real bank answers over the network; its answer is then applied.
import { DomainError, fieldError, notFound, stateError } from '../domain/errors.js';
import type { Payment } from '../domain/payment.js';
import { AWAITING_BANK_STATES, isAttemptOpen, payerBlock, type PaymentAttempt } from '../domain/payment-attempt.js';
import type { BankConnector, TransferOrder, TransferResult } from '../bank/connector.js';
import { answerWithin, NO_ANSWER_IN_TIME } from '../bank/answer-within.js';
import { connectorFor } from '../bank/registry.js';
import { findAttempt, latestAttemptIn, moveAttempt } from '../store/attempts.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { applyTransferResult, bankCall, transferOrder } from './apply-transfer.js';
import type { AppContext } from './context.js';
import { getPayerAttempt } from './payer-payment.js';

export interface AuthorizationOutcome {
  result: TransferResult['status'];
  attempt: PaymentAttempt;
  payment: Payment;
}

/** What a bank that could not be reached (or broke off) answered: it may have moved the money all the same, only the bank can say. */
export const NO_ANSWER: TransferResult = { status: 'uncertain' };

export async function authorizeTransfer(ctx: AppContext, attemptId: string, answers: readonly string[]): Promise<AuthorizationOutcome> {
  const { attempt, payment } = await getPayerAttempt(ctx, attemptId);
  const now = ctx.clock.now();
  if (!isAttemptOpen(attempt, now)) throw stateError('This attempt has expired');
  if (attempt.state !== 'authenticated') throw stateError('This transfer was already submitted');
  const block = payerBlock(payment, now);
  if (block) throw stateError(`The payment cannot be paid: ${block}`);
  const connector = connectorFor(attempt.bankId);
  if (!connector) throw new DomainError('forbidden', 'Quipu has no connection to this bank');
  if (!connector.acceptsAnswers(answers)) throw fieldError('coordinates', 'must be the two digits of each coordinate asked');
  await claimAttempt(ctx, attempt, now);
  const result = await askBank(ctx, connector, transferOrder(attempt, payment, ctx.config.collectionAccount), answers);
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
    if (!(await moveAttempt(trx, attempt.attemptId, 'authenticated', { state: 'authorizing', updated_at: now.getTime() }))) {
      throw stateError('This transfer was already submitted');
    }
  });
}

/**
 * The bank's answer. A failed or unanswered call must not leave the attempt authorizing (nor the
 * payer waiting) for good: it becomes uncertain, and the bank's later answer (housekeeping asks
 * it) or its credit on the collection account decides it; an answer arriving after the timeout is
 * not waited for.
 */
async function askBank(ctx: AppContext, connector: BankConnector, order: TransferOrder, answers: readonly string[]): Promise<TransferResult> {
  const context = { attemptId: order.orderId, bankId: connector.bankId };
  try {
    const answer = await answerWithin(connector.transfer(order, answers, bankCall(ctx)), ctx.config.bankTimeoutMs);
    if (answer !== NO_ANSWER_IN_TIME) return answer;
    ctx.log.error({ ...context, timeoutMs: ctx.config.bankTimeoutMs }, 'the bank did not answer a transfer in time; it is uncertain until the bank confirms or fails it');
  } catch (error) {
    ctx.log.error({ err: error, ...context }, 'the bank did not answer a transfer; it is uncertain until the bank confirms or fails it');
  }
  return NO_ANSWER;
}
