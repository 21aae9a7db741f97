// A paid payment's receipt: which payments have one, and where it is. The provider's receipt_url
// names a PDF, CPKH-<day month year hour minute>-<payment_id>.pdf, the instant being when the
// payment was reconciled on Santiago's clocks (provider-facts §2's example,
// CPKH-1804240956-zfxnocsow6mz.pdf, of a payment reconciled at 2024-04-18T13:56Z, 09:56 in
// Santiago); Quipu serves its own PDF under the same name.
import { localParts } from './business-days.js';
import type { Payment } from './payment.js';

/** A payment that has a receipt. */
export type ReceiptPayment = Payment & { conciliationAt: Date; receiptUrl: string };

/** Only a payment reconciled from a credit has a receipt: the bank's movement is what it attests. */
export function hasReceipt(payment: Payment): payment is ReceiptPayment {
  return payment.status === 'done' && payment.receiptUrl !== null && payment.conciliationAt !== null;
}

const twoDigits = (n: number) => String(n).padStart(2, '0');

/** The receipt's file name, as the provider names its receipts. */
export function receiptFileName(paymentId: string, conciliationAt: Date): string {
  const { day, month, year, hour, minute } = localParts(conciliationAt);
  return `CPKH-${[day, month, year % 100, hour, minute].map(twoDigits).join('')}-${paymentId}.pdf`;
}

/** Where the payer pages serve the receipt's PDF (receipt_url). */
export function receiptPath(paymentId: string, conciliationAt: Date): string {
  return `/payment/receipt/${receiptFileName(paymentId, conciliationAt)}`;
}
