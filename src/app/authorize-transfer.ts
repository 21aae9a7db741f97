// The payer authorises the transfer at their bank. The attempt is claimed first (authenticated →
// authorizing), so a double submit reaches the bank once; the bank is asked outside any
// transaction, since a real bank answers over the network; its answer is then applied.
import { DomainError, fieldError, stateError } from '../domain/errors.js';
import type { Payment } from '../domain/payment.js';
import { isAttemptOpen, payerBlock, type PaymentAttempt } from '../domain/payment-attempt.js';
import type { TransferResult } from '../bank/connector.js';
import { connectorFor } from '../bank/registry.js';
import { findAttempt, moveAttempt } from '../store/attempts.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { applyTransferResult, transferOrder } from './apply-transfer.js';
import type { AppContext } from './context.js';
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
  const connector = connectorFor(attempt.bankId);
  if (!connector) throw new DomainError('forbidden', 'Quipu has no connection to this bank');
  if (!connector.acceptsAnswers(answers)) throw fieldError('coordinates', 'must be the two digits of each coordinate asked');
  if (!(await moveAttempt(ctx.db, attempt.attemptId, 'authenticated', { state: 'authorizing', updated_at: now.getTime() }))) {
    throw stateError('This transfer was already submitted');
  }
  const result = await connector.transfer(transferOrder(attempt, payment), answers, now);
  await applyTransferResult(ctx, attempt, 'authorizing', result);
  return {
    result: result.status,
    attempt: (await findAttempt(ctx.db, attempt.attemptId))!,
    payment: (await findPaymentById(ctx.db, payment.paymentId)) ?? payment,
  };
}
