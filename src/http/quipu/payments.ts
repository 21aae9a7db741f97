// The account's payments for scripts: filtered, searched, newest first, a page at a time, each as
// GET /v3/payments/{id} shows it (docs/payment-list.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { listPayments } from '../../app/payment-list.js';
import { DEFAULT_PAYMENT_PAGE, MAX_PAYMENT_PAGE, MAX_SEARCH_LENGTH, parsePaymentFilter } from '../../domain/payment-filter.js';
import { PAYMENT_STATUSES, STATUS_DETAILS } from '../../domain/payment-status.js';
import { paymentResource } from '../payment-resource.js';
import { PaymentV3 } from '../schemas.js';
import { nullable } from './message-schemas.js';

const DATE = 'A date (YYYY-MM-DD, the day in Chile, America/Santiago) or an ISO 8601 date-time with a time zone';

// Every parameter is text to the schema: the filter's own rules (domain/payment-filter.ts) check
// them all together, so a 400 names every bad one.
const ListQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ description: `Only payments in this status: ${PAYMENT_STATUSES.join(', ')}` })),
    status_detail: Type.Optional(Type.String({ description: `Only payments with this status_detail: ${STATUS_DETAILS.join(', ')}` })),
    from: Type.Optional(Type.String({ description: `Created at or after. ${DATE}` })),
    to: Type.Optional(Type.String({ description: `Created before (exclusive). ${DATE}` })),
    q: Type.Optional(
      Type.String({
        description: `Text found in the subject, payment_id, transaction_id or payer_email, whatever its case (at most ${MAX_SEARCH_LENGTH} characters)`,
      }),
    ),
    limit: Type.Optional(
      Type.String({ description: `At most this many payments: a whole number from 1 to ${MAX_PAYMENT_PAGE} (${DEFAULT_PAYMENT_PAGE} if absent)` }),
    ),
    cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page, with the same filters' })),
  },
  { additionalProperties: false },
);

const PaymentPage = Type.Object({
  items: Type.Array(PaymentV3),
  next_cursor: nullable(Type.String(), 'Where the next page starts (?cursor=); null on the last page'),
});

export const paymentListRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/quipu/v1/payments',
    {
      schema: {
        tags: ['Quipu: payments'],
        summary: "List the account's payments, newest first, a page at a time",
        querystring: ListQuery,
        response: { 200: PaymentPage },
      },
    },
    async (request) => {
      const merchant = request.merchant!;
      const page = await listPayments(request.ctx, merchant, parsePaymentFilter(request.query));
      return { items: page.payments.map((p) => paymentResource(request.ctx.config.publicBaseUrl, p, merchant)), next_cursor: page.nextCursor ?? null };
    },
  );
};
