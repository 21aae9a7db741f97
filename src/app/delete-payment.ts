// Deletes a payment nobody has started paying. The row stays for the record, invisible to every
// API: reading it afterwards is a 404.
import { stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { isDeletable } from '../domain/payment-status.js';
import type { AppContext } from './context.js';
import { changePayment } from './change-payment.js';

export async function deletePayment(ctx: AppContext, merchant: Merchant, paymentId: string): Promise<void> {
  await changePayment(ctx, merchant.receiverId, paymentId, (payment, now) => {
    if (!isDeletable(payment)) throw stateError(`Only pending payments can be deleted; this one is ${payment.status}`);
    return { fields: { deleted_at: now.getTime() } };
  });
}
