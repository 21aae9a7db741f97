// Reading payments: by id, and by the notification token a 1.3 notification carries.
import { notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { findPaymentByToken, findPaymentToRead } from '../store/payments.js';
import type { AppContext } from './context.js';

/** The payment as it is now, to answer with (frozen: it may be shared with other requests). */
export async function getPayment(ctx: AppContext, merchant: Merchant, paymentId: string): Promise<Readonly<Payment>> {
  const payment = await findPaymentToRead(ctx.db, merchant.receiverId, paymentId);
  if (!payment) throw notFound('Payment');
  return payment;
}

export async function getPaymentByToken(ctx: AppContext, merchant: Merchant, token: string): Promise<Payment> {
  const payment = await findPaymentByToken(ctx.db, merchant.receiverId, token);
  if (!payment) throw notFound('Payment');
  return payment;
}
