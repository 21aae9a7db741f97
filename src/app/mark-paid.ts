// The merchant declares a payment paid by other means (marked-paid-by-receiver). It is not a
// reconciliation: no credit, no receipt and no notification, since the merchant already knows.
import { stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { canApply } from '../domain/payment-status.js';
import { changePayment } from './change-payment.js';
import type { AppContext } from './context.js';

export async function markPaid(ctx: AppContext, merchant: Merchant, paymentId: string): Promise<Payment> {
  return changePayment(ctx, merchant.receiverId, paymentId, (payment) => {
    if (!canApply(payment, 'marked-paid-by-receiver')) {
      throw stateError(`Only pending or verifying payments can be marked as paid; this one is ${payment.status}/${payment.statusDetail}`);
    }
    return { event: 'marked-paid-by-receiver' };
  });
}
