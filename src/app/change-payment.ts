// The one place a stored payment changes. A use case decides what to change from the current
// payment (under a row lock), status moves go through the transition table, and the change, its
// version bump, its extra writes (refund rows) and the messages it sends or withdraws
// (domain/payment-messages.ts) commit together.
import type { Kysely } from 'kysely';
import { notFound } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { PAYER_EMAIL_KINDS } from '../domain/message-kinds.js';
import { PAYMENT_EVENT_MESSAGES, payerEmailChange } from '../domain/payment-messages.js';
import { applyEvent, type PaymentEvent } from '../domain/payment-status.js';
import { withdrawMessages } from '../store/messages.js';
import type { DB, PaymentUpdate } from '../store/schema.js';
import { findPayment, updatePayment } from '../store/payments.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, withDb } from './context.js';
import { merchantOf } from './merchant-of.js';

export interface PaymentChange {
  /** A status move, looked up in the transition table. */
  event?: PaymentEvent;
  /** Other columns to set. */
  fields?: Omit<PaymentUpdate, 'status' | 'status_detail' | 'version' | 'updated_at'>;
  /** Writes that belong to the same change, run after the payment row is updated. */
  also?: (trx: Kysely<DB>, changed: Payment) => Promise<void>;
  /** The account, when the use case has it at hand; otherwise it is read when a message needs it. */
  merchant?: Merchant;
}

/**
 * `held` is the payment as the caller read it under its row lock in the transaction `ctx.db` is
 * (record-credits locks a statement's payments in one query); otherwise the row is locked here.
 */
export async function changePayment(
  ctx: AppContext,
  receiverId: number,
  paymentId: string,
  decide: (payment: Payment, now: Date) => PaymentChange,
  held?: Payment,
): Promise<Payment> {
  if (held && !ctx.db.isTransaction) throw new Error('a payment held by its caller must be changed in the transaction that locked it');
  return inTransaction(ctx.db, async (trx) => {
    const payment = held ?? (await findPayment(trx, receiverId, paymentId, { lock: true }));
    if (!payment || payment.receiverId !== receiverId || payment.paymentId !== paymentId) throw notFound('Payment');
    const now = ctx.clock.now();
    const change = decide(payment, now);
    const next = change.event ? applyEvent(payment, change.event) : payment;
    const emails = payerEmailChange(payment, next, change.fields?.deleted_at != null, now);
    const update: PaymentUpdate = {
      ...change.fields,
      ...(emails && { next_reminder_at: emails.nextReminderAt?.getTime() ?? null }),
      status: next.status,
      status_detail: next.statusDetail,
      updated_at: now.getTime(),
    };
    // The row is locked, so the version always matches; the check guards against a caller that forgot the lock.
    const changed = await updatePayment(trx, paymentId, payment.version, update);
    if (!changed) throw new Error(`payment ${paymentId} changed during its own transaction`);
    if (change.also) await change.also(trx, changed);
    if (emails?.withdraw) await withdrawMessages(trx, paymentId, PAYER_EMAIL_KINDS, now.getTime());
    const messages = change.event && PAYMENT_EVENT_MESSAGES[change.event];
    if (messages) {
      const draft = messages(changed, change.merchant ?? (await merchantOf(withDb(ctx, trx), receiverId)));
      if (draft) await ctx.outbox.write(trx, draft);
    }
    return changed;
  });
}
