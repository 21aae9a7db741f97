// The accountability report: what a receiver is told at its rendition_url when funds are
// delivered to it. The contract names the event but not its body, so Quipu defines it in the
// manner of the 3.0 payment notification: JSON written as the provider writes it, amounts as
// four-decimal text, instants in ISO 8601 UTC, absent text as "", signed with x-khipu-signature.
// The body is built once, when the delivery is recorded, and every attempt sends the same bytes.
import { formatDateTime } from './dates.js';
import { type FundDelivery, netAmount } from './fund-delivery.js';
import type { MessageDraft } from './message-kinds.js';
import { formatAmountFixed } from './money.js';
import { providerJson } from './notification-body.js';

export interface RecordedFundDelivery extends FundDelivery {
  deliveryId: string;
  receiverId: number;
}

/** The report's body, in this field order; payments in the delivery's order. */
export function accountabilityReport(delivery: RecordedFundDelivery): string {
  return providerJson({
    receiver_id: delivery.receiverId,
    delivery_id: delivery.deliveryId,
    delivery_date: formatDateTime(delivery.deliveredAt),
    currency: delivery.currency,
    payments: delivery.payments.map((payment) => ({
      payment_id: payment.paymentId,
      transaction_id: payment.transactionId ?? '',
      subject: payment.subject,
      conciliation_date: formatDateTime(payment.conciliationAt ?? payment.updatedAt),
      amount: formatAmountFixed(payment.amount),
      refunded: formatAmountFixed(payment.refunded),
      net: formatAmountFixed(netAmount(payment)),
    })),
    total: formatAmountFixed(delivery.total),
  });
}

/** The report of a delivery, to the receiver's rendition_url. */
export function accountabilityReportMessage(delivery: RecordedFundDelivery, renditionUrl: string): MessageDraft {
  return {
    kind: 'receiver.accountability',
    receiverId: delivery.receiverId,
    subjectId: String(delivery.receiverId),
    url: renditionUrl,
    contentType: 'application/json',
    body: accountabilityReport(delivery),
  };
}
