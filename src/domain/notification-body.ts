// What a payment notification carries, byte for byte as the provider sends it. Version 1.3 is a
// form with the token the merchant resolves through the v2 lookup; version 3.0 is the payment
// itself as JSON, amounts as four-decimal text. The body is built once, when the payment is
// reconciled, and every attempt sends the same bytes.
import { formatDateTime } from './dates.js';
import type { Merchant } from './merchant.js';
import { type MessageDraft, PAYMENT_NOTIFICATION_KIND } from './message-kinds.js';
import { formatAmountFixed } from './money.js';
import { type Payment, settlementFields } from './payment.js';

export type NotifyApiVersion = '1.3' | '3.0';

export interface NotificationBody {
  contentType: string;
  body: string;
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

export function notificationBody(version: NotifyApiVersion, payment: Payment): NotificationBody {
  if (version === '1.3') {
    return { contentType: FORM, body: new URLSearchParams({ api_version: '1.3', notification_token: payment.notificationToken }).toString() };
  }
  return { contentType: JSON_TYPE, body: providerJson(paymentNotification(payment)) };
}

/**
 * The notification of a reconciled payment: its own URL and version, else the account's. Neither
 * URL set: there is nobody to tell, and no message is written.
 */
export function paymentNotificationMessage(payment: Payment, merchant: Pick<Merchant, 'notifyUrl' | 'notifyApiVersion'>): MessageDraft | undefined {
  const url = payment.notifyUrl ?? merchant.notifyUrl;
  if (!url) return undefined;
  const version = (payment.notifyApiVersion ?? merchant.notifyApiVersion) as NotifyApiVersion;
  return { kind: PAYMENT_NOTIFICATION_KIND[version], receiverId: payment.receiverId, subjectId: payment.paymentId, url, ...notificationBody(version, payment) };
}

/** The 3.0 payment, in the provider's field order; custom and body only when the payment has them. */
export function paymentNotification(payment: Payment): Record<string, string | number | boolean> {
  const notification: Record<string, string | number | boolean> = {
    payment_id: payment.paymentId,
    receiver_id: payment.receiverId,
    subject: payment.subject,
    amount: formatAmountFixed(payment.amount),
    discount: formatAmountFixed(payment.discount),
    currency: payment.currency,
    receipt_url: payment.receiptUrl ?? '',
    ...settlementFields(payment),
    responsible_user_email: payment.responsibleUserEmail ?? '',
    payment_method: payment.paymentMethod ?? '',
    conciliation_date: formatDateTime(payment.conciliationAt ?? payment.updatedAt),
  };
  if (payment.custom) notification.custom = payment.custom;
  if (payment.body) notification.body = payment.body;
  return notification;
}

/**
 * JSON as the provider writes it: slashes escaped as `\/` (its serializer's default). A `/` can
 * only occur inside a JSON string, where `\/` is the same character, so the values are unchanged.
 */
export function providerJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('/', '\\/');
}
