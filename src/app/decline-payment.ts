// The payer declares they will not pay (rejected-by-payer), or that the charge was unsolicited
// (marked-as-abuse). Both are final; an expired payment is left as it is.
import { stateError } from '../domain/errors.js';
import type { Payment } from '../domain/payment.js';
import { payerBlock } from '../domain/payment-attempt.js';
import { canApply } from '../domain/payment-status.js';
import { changePayment } from './change-payment.js';
import type { AppContext } from './context.js';
import { getPayerPayment, refuseDirectDebit } from './payer-payment.js';

export type Declination = 'rejected-by-payer' | 'marked-as-abuse';

export async function declinePayment(ctx: AppContext, paymentId: string, declination: Declination): Promise<Payment> {
  const view = await getPayerPayment(ctx, paymentId);
  refuseDirectDebit(view);
  const { payment } = view;
  return changePayment(ctx, payment.receiverId, payment.paymentId, (current, now) => {
    const block = payerBlock(current, now);
    if (block || !canApply(current, declination)) throw stateError(`The payment cannot be declined: ${block ?? current.statusDetail}`);
    return { event: declination };
  });
}
