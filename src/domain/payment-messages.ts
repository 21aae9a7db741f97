// Which messages a payment's state change sends: one table, read by the one place a payment
// changes (app/change-payment.ts), which writes them in the change's own transaction.
import type { Merchant } from './merchant.js';
import type { MessageDraft } from './message-kinds.js';
import { paymentNotificationMessage } from './notification-body.js';
import type { Payment } from './payment.js';
import { isPayable, type PaymentEvent, type PaymentState } from './payment-status.js';
import { hasReceipt, type ReceiptPayment } from './receipt.js';
import { nextReminderAt } from './reminder-schedule.js';

type MessagesOf = (payment: Payment, merchant: Merchant) => MessageDraft | undefined;

/** The contract's one payment event: a reconciled payment is notified to its notify URL. */
export const PAYMENT_EVENT_MESSAGES: Partial<Record<PaymentEvent, MessagesOf>> = {
  reconciled: paymentNotificationMessage,
};

/**
 * A reconciled payment's payer is sent its confirmation, with the receipt, when the payment names
 * their email (the one given at creation or on the payer pages, or the bank's). The provider does
 * not say it emails payers: this is Quipu's own choice (docs/emails.md). A payment marked paid by
 * its merchant has no receipt and its payer paid outside Quipu: nothing is sent.
 */
export function sendsConfirmation(event: PaymentEvent | undefined, payment: Payment): payment is ReceiptPayment & { payerEmail: string } {
  return event === 'reconciled' && hasReceipt(payment) && !!payment.payerEmail;
}

/** What a change does to the payer's emails: withdraw those not sent yet, and when to remind next. */
export interface PayerEmailChange {
  withdraw: boolean;
  nextReminderAt: Date | null;
}

/**
 * The payer of an emailed collection is asked to pay only while the payment can be paid. A change
 * that takes it out of that state (paid, a transfer authorised, declined, reported, deleted)
 * withdraws the emails not sent yet and stops the reminders; one that brings it back (a transfer
 * that failed) resumes the reminders from now. Expiry is not a change: every payer email is valid
 * until the payment expires, and no reminder falls after that.
 */
export function payerEmailChange(before: Payment, after: PaymentState, deleted: boolean, now: Date): PayerEmailChange | undefined {
  if (!before.sendEmail) return undefined;
  const payable = isPayable(after) && !deleted;
  if (payable === isPayable(before)) return undefined;
  return payable ? { withdraw: false, nextReminderAt: nextReminderAt(before, now) } : { withdraw: true, nextReminderAt: null };
}
