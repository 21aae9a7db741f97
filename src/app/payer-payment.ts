// What the payer's pages read: a payment by its id (the payer knows no account), its account, and
// an attempt with both.
import { notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { PaymentAttempt } from '../domain/payment-attempt.js';
import { findAttempt } from '../store/attempts.js';
import { findPaymentById } from '../store/payment-lookup.js';
import type { AppContext } from './context.js';
import { merchantOf } from './merchant-of.js';

export interface PayerPayment {
  payment: Payment;
  merchant: Merchant;
}

export interface PayerAttempt extends PayerPayment {
  attempt: PaymentAttempt;
}

export async function getPayerPayment(ctx: AppContext, paymentId: string): Promise<PayerPayment> {
  const payment = await findPaymentById(ctx.db, paymentId);
  if (!payment) throw notFound('Payment');
  return { payment, merchant: await merchantOf(ctx, payment.receiverId) };
}

export async function getPayerAttempt(ctx: AppContext, attemptId: string): Promise<PayerAttempt> {
  const attempt = await findAttempt(ctx.db, attemptId);
  if (!attempt) throw notFound('Attempt');
  return { attempt, ...(await getPayerPayment(ctx, attempt.paymentId)) };
}
