// The payments list as a CSV file: the list's filters (payment-list.ts reads them the same way), every
// matching payment and not one page, newest first. Values are the API's (status and status_detail as
// the API spells them, instants in ISO 8601, amounts as exact decimal text like the API's numbers),
// so a script reads the file as it reads the JSON list. Streamed a page at a time.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { listPayments } from '../../app/payment-list.js';
import type { Merchant } from '../../domain/merchant.js';
import { formatAmount } from '../../domain/money.js';
import type { Payment } from '../../domain/payment.js';
import type { PagePosition } from '../../domain/page-cursor.js';
import { MAX_PAYMENT_PAGE, type PaymentFilter, type PaymentListQuery, parsePaymentFilter } from '../../domain/payment-filter.js';
import { csvLine, csvText } from '../../render/csv.js';
import { sessionOf } from './layout.js';
import { PAYMENTS_CSV_PATH } from './payment-list.js';

export const CSV_COLUMNS = [
  'payment_id',
  'created_at',
  'status',
  'status_detail',
  'currency',
  'amount',
  'refunded',
  'subject',
  'transaction_id',
  'payer_name',
  'payer_email',
  'expires_at',
] as const;

const row = (p: Payment) =>
  csvLine([
    p.paymentId,
    p.createdAt.toISOString(),
    p.status,
    p.statusDetail,
    p.currency,
    formatAmount(p.amount),
    formatAmount(p.refunded),
    csvText(p.subject),
    csvText(p.transactionId),
    csvText(p.payerName),
    csvText(p.payerEmail),
    p.expiresAt.toISOString(),
  ]);

async function* lines(ctx: AppContext, merchant: Merchant, filter: PaymentFilter): AsyncGenerator<string> {
  yield csvLine(CSV_COLUMNS);
  let after: PagePosition | undefined;
  for (;;) {
    const page = await listPayments(ctx, merchant, { ...filter, after, limit: MAX_PAYMENT_PAGE });
    for (const payment of page.payments) yield row(payment);
    const last = page.payments.at(-1);
    if (!page.nextCursor || !last) return;
    after = { at: last.createdAt.getTime(), id: last.paymentId };
  }
}

export function paymentsCsvRoutes(app: FastifyInstance): void {
  // A bad filter is a bad request here: the file is what the list shows, and a list that dropped a filter is not that.
  app.get<{ Querystring: PaymentListQuery }>(PAYMENTS_CSV_PATH, async (request, reply) => {
    const { q, status, from, to } = request.query;
    const filter = parsePaymentFilter({ q, status, from, to });
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', 'attachment; filename="payments.csv"')
      .type('text/csv; charset=utf-8')
      .send(Readable.from(lines(request.ctx, sessionOf(request).merchant, filter)));
  });
}
