// Confirms a paid payment for accounts that contracted confirmation: its funds are delivered on
// the next business day.
import { forbidden, stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { isPaidNormally } from '../domain/payment-status.js';
import { fundsDelivered } from '../domain/refund.js';
import { deliveryAfterConfirmation } from '../domain/settlement.js';
import type { AppContext } from './context.js';
import { changePayment } from './change-payment.js';

export async function confirmPayment(ctx: AppContext, merchant: Merchant, paymentId: string): Promise<Date> {
  if (!merchant.features.confirm) throw forbidden('Payment confirmation is not contracted for this account');
  const payment = await changePayment(ctx, merchant.receiverId, paymentId, (p, now) => {
    if (!isPaidNormally(p)) throw stateError(`Only paid payments can be confirmed; this one is ${p.status}/${p.statusDetail}`);
    if (p.confirmedAt) throw stateError('The payment is already confirmed');
    if (fundsDelivered(p, now)) throw stateError('The funds of this payment have already been delivered');
    return { fields: { confirmed_at: now.getTime(), funds_delivery_at: deliveryAfterConfirmation(now, p.fundsDeliveryAt).getTime() } };
  });
  return payment.fundsDeliveryAt!;
}
