// An account's payments a page at a time, newest first, as a listing's filter asks: the JSON list
// (/quipu/v1/payments), `quipu payments list` and the dashboard's payments page. One query, so a
// page is one consistent read.
import type { Merchant } from '../domain/merchant.js';
import { encodePageCursor } from '../domain/page-cursor.js';
import type { Payment } from '../domain/payment.js';
import type { PaymentFilter } from '../domain/payment-filter.js';
import { listPaymentRows } from '../store/payment-list.js';
import { toPayment } from '../store/payments.js';
import type { AppContext } from './context.js';

/** `nextCursor`, the next page's `cursor`, is absent on the last page. */
export async function listPayments(ctx: AppContext, merchant: Merchant, filter: PaymentFilter): Promise<{ payments: Payment[]; nextCursor?: string }> {
  // One more than asked tells whether another page follows.
  const rows = await listPaymentRows(ctx.db, merchant.receiverId, filter, filter.limit + 1);
  const payments = rows.slice(0, filter.limit).map(toPayment);
  const last = payments.at(-1);
  if (rows.length <= filter.limit || !last) return { payments };
  return { payments, nextCursor: encodePageCursor({ at: last.createdAt.getTime(), id: last.paymentId }) };
}
