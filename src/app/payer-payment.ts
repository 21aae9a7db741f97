// What the payer's pages read: a payment by its id (the payer knows no account), its account, and
// an attempt with both. A charge intent's payment is collected by its debit under the payer's
// mandate, never paid on the payer pages: a payer's transfer while the debit is in flight would pay twice.
import { notFound, stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { PaymentAttempt } from '../domain/payment-attempt.js';
import { findAttempt } from '../store/attempts.js';
import { findDebitOfPayment } from '../store/debits.js';
import { findPaymentById } from '../store/payment-lookup.js';
import type { AppContext } from './context.js';
import { merchantOf } from './merchant-of.js';

export interface PayerPayment {
  payment: Payment;
  merchant: Merchant;
  /** A charge intent's payment: its debit collects it from the payer's account. */
  directDebit: boolean;
}

export interface PayerAttempt extends PayerPayment {
  attempt: PaymentAttempt;
}

export async function getPayerPayment(ctx: AppContext, paymentId: string): Promise<PayerPayment> {
  const payment = await findPaymentById(ctx.db, paymentId);
  if (!payment) throw notFound('Payment');
  const [merchant, debit] = await Promise.all([merchantOf(ctx, payment.receiverId), findDebitOfPayment(ctx.db, paymentId)]);
  return { payment, merchant, directDebit: debit !== undefined };
}

/** What the payer pages would do to a charge intent's payment (start a transfer, decline it) is refused. */
export function refuseDirectDebit(view: PayerPayment): void {
  if (view.directDebit) throw stateError("The payment is a charge collected by direct debit from the payer's account");
}

export async function getPayerAttempt(ctx: AppContext, attemptId: string): Promise<PayerAttempt> {
  const attempt = await findAttempt(ctx.db, attemptId);
  if (!attempt) throw notFound('Attempt');
  return { attempt, ...(await getPayerPayment(ctx, attempt.paymentId)) };
}
