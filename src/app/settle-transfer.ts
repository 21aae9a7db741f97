// The bank settles a transfer it had left uncertain: confirmed, the credit reaches reconciliation
// and the payment is done; failed, the payment is pending again and the payer may retry. For
// DemoBank a developer decides, through the sandbox or the CLI.
import { notFound, stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { connectorFor } from '../bank/registry.js';
import { latestAttemptIn } from '../store/attempts.js';
import { findPayment } from '../store/payments.js';
import { applyTransferResult, transferOrder } from './apply-transfer.js';
import type { AppContext } from './context.js';

export type Settlement = 'confirm' | 'fail';

export async function settleTransfer(ctx: AppContext, merchant: Merchant, paymentId: string, outcome: Settlement): Promise<Payment> {
  const payment = await findPayment(ctx.db, merchant.receiverId, paymentId);
  if (!payment) throw notFound('Payment');
  const attempt = await latestAttemptIn(ctx.db, paymentId, ['uncertain']);
  if (!attempt) throw stateError('The payment has no transfer waiting for its bank');
  const connector = connectorFor(attempt.bankId);
  if (!connector) throw stateError('Quipu has no connection to this bank');
  const result = await connector.settle(transferOrder(attempt, payment), outcome, ctx.clock.now());
  await applyTransferResult(ctx, attempt, 'uncertain', result);
  return (await findPayment(ctx.db, merchant.receiverId, paymentId))!;
}
