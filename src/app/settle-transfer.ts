// A developer settles a transfer DemoBank left uncertain, through the sandbox or the CLI: DemoBank
// books the decision, and it is applied at once the way housekeeping applies a bank's answer
// (resolveTransfer asks DemoBank, which now knows). Confirmed, the credit reaches reconciliation
// and the payment is done; failed, the payment is pending again and the payer may retry. Only
// DemoBank's transfers, of developer-mode accounts, where SANDBOX is on: a real bank's transfer
// is decided by that bank alone.
import { DEMO_BANK_ID, findBank } from '../domain/banks.js';
import { forbidden, notFound, stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { type DemoBankDecision, decideTransfer } from '../bank/demo-bank.js';
import { latestAttemptIn } from '../store/attempts.js';
import { findPayment } from '../store/payments.js';
import { transferOrder } from './apply-transfer.js';
import type { AppContext } from './context.js';
import { resolveTransfer } from './resolve-transfers.js';

export async function settleTransfer(ctx: AppContext, merchant: Merchant, paymentId: string, decision: DemoBankDecision): Promise<Payment> {
  if (!ctx.config.sandbox) throw forbidden('DemoBank settles transfers only where SANDBOX is on');
  if (!merchant.developer) throw forbidden('DemoBank settles transfers of developer-mode accounts only');
  const payment = await findPayment(ctx.db, merchant.receiverId, paymentId);
  if (!payment) throw notFound('Payment');
  const attempt = await latestAttemptIn(ctx.db, paymentId, ['uncertain']);
  if (!attempt) throw stateError('The payment has no transfer waiting for its bank');
  if (attempt.bankId !== DEMO_BANK_ID) {
    throw forbidden(`The transfer waits for ${findBank(attempt.bankId, true)?.name ?? attempt.bankId}, not DemoBank: only that bank can settle it`);
  }
  await decideTransfer(ctx.db, transferOrder(attempt, payment, ctx.config.collectionAccount), decision, ctx.clock.now());
  await resolveTransfer(ctx, attempt);
  return (await findPayment(ctx.db, merchant.receiverId, paymentId))!;
}
