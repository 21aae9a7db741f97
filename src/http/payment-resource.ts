// The contract's Payment resource, built from a stored payment. v3 and v2 answer with the same
// fields; v2 differs only where the contract says so (see `legacy`).
import { formatDateTime } from '../domain/dates.js';
import type { Merchant } from '../domain/merchant.js';
import { amountToNumber } from '../domain/money.js';
import { type Payment, paymentUrls, settlementFields } from '../domain/payment.js';

// Written out field by field: an object literal that spreads other objects between its own
// properties makes V8 build a new hidden class on every call, which cost 50 µs per payment.
export function paymentResource(baseUrl: string, payment: Payment, merchant: Merchant) {
  const urls = paymentUrls(baseUrl, payment);
  const paid = settlementFields(payment);
  return {
    payment_id: urls.payment_id,
    payment_url: urls.payment_url,
    simplified_transfer_url: urls.simplified_transfer_url,
    transfer_url: urls.transfer_url,
    app_url: urls.app_url,
    ready_for_terminal: urls.ready_for_terminal,
    notification_token: payment.notificationToken,
    receiver_id: payment.receiverId,
    // v3 requires a date-time here even before reconciliation: until then it is the creation time.
    conciliation_date: formatDateTime(payment.conciliationAt ?? payment.createdAt),
    subject: payment.subject,
    amount: amountToNumber(payment.amount),
    currency: payment.currency,
    status: payment.status,
    status_detail: payment.statusDetail,
    body: payment.body ?? '',
    picture_url: payment.pictureUrl ?? '',
    receipt_url: payment.receiptUrl ?? '',
    return_url: payment.returnUrl ?? '',
    cancel_url: payment.cancelUrl ?? '',
    notify_url: payment.notifyUrl ?? merchant.notifyUrl ?? '',
    notify_api_version: payment.notifyApiVersion ?? merchant.notifyApiVersion,
    expires_date: formatDateTime(payment.expiresAt),
    attachment_urls: [] as string[],
    bank: paid.bank,
    bank_id: paid.bank_id,
    payer_name: paid.payer_name,
    payer_email: paid.payer_email,
    personal_identifier: paid.personal_identifier,
    bank_account_number: paid.bank_account_number,
    out_of_date_conciliation: paid.out_of_date_conciliation,
    transaction_id: paid.transaction_id,
    custom: payment.custom ?? '',
    responsible_user_email: payment.responsibleUserEmail ?? '',
    send_reminders: payment.sendReminders,
    send_email: payment.sendEmail,
    payment_method: payment.paymentMethod ?? 'not_available',
    funds_source: payment.fundsSource ?? 'not-available',
    discount: amountToNumber(payment.discount),
    third_party_authorization_details: '',
  };
}

export type PaymentResource = ReturnType<typeof paymentResource>;

/** The v2 Payment: conciliation_date is optional there, so it appears only once the payment is reconciled. */
export function legacyPaymentResource(baseUrl: string, payment: Payment, merchant: Merchant) {
  const { conciliation_date, ...rest } = paymentResource(baseUrl, payment, merchant);
  return payment.conciliationAt ? { ...rest, conciliation_date } : rest;
}
