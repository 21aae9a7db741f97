// Which messages a payment's state change sends: one table, read by the one place a payment
// changes (app/change-payment.ts), which writes them in the change's own transaction.
import type { Merchant } from './merchant.js';
import type { MessageDraft } from './message-kinds.js';
import { paymentNotificationMessage } from './notification-body.js';
import type { Payment } from './payment.js';
import type { PaymentEvent } from './payment-status.js';

type MessagesOf = (payment: Payment, merchant: Merchant) => MessageDraft | undefined;

/** The contract's one payment event: a reconciled payment is notified to its notify URL. */
export const PAYMENT_EVENT_MESSAGES: Partial<Record<PaymentEvent, MessagesOf>> = {
  reconciled: paymentNotificationMessage,
};
