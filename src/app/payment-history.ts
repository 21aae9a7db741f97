// A payment with everything that happened to it, for the dashboard's payment page: its payer
// attempts, refunds, and every message sent about it with each delivery attempt. Only the
// account's own payment: another account's id is not found.
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { PaymentAttempt } from '../domain/payment-attempt.js';
import { attemptsOfPayment } from '../store/attempts.js';
import { listRefunds } from '../store/payments.js';
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import type { AppContext } from './context.js';
import { messagesAbout } from './message-queries.js';
import { getPayment } from './payment-queries.js';

export interface PaymentHistory {
  payment: Readonly<Payment>;
  attempts: PaymentAttempt[];
  refunds: { refundId: string; amount: number; createdAt: Date }[];
  messages: { message: MessageRow; attempts: MessageAttemptRow[] }[];
}

export async function getPaymentHistory(ctx: AppContext, merchant: Merchant, paymentId: string): Promise<PaymentHistory> {
  const payment = await getPayment(ctx, merchant, paymentId);
  const messages = await messagesAbout(ctx, merchant.receiverId, paymentId);
  return { payment, attempts: await attemptsOfPayment(ctx.db, paymentId), refunds: await listRefunds(ctx.db, paymentId), messages };
}
