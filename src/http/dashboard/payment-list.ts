// The payments list: the filters of the JSON list (status, dates, text search) as a GET form, so a
// filtered page is a link; keyset paging through the same listPayments; and the same filters'
// payments as a CSV file (payments-csv.ts). A bad filter is marked on its field, in the page's
// language, and the list is shown without it.
import type { FastifyInstance } from 'fastify';
import { listPayments } from '../../app/payment-list.js';
import { DomainError, type FieldError } from '../../domain/errors.js';
import type { Payment } from '../../domain/payment.js';
import { type PaymentFilter, type PaymentListQuery, parsePaymentFilter } from '../../domain/payment-filter.js';
import { PAYMENT_STATUSES } from '../../domain/payment-status.js';
import { formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, frameOf, sendPage, sessionOf } from './layout.js';
import { paymentPath, PAYMENTS_PATH } from './payment-page.js';
import { paymentPill } from './statuses.js';
import { dataTable } from './table.js';

const FORM_FIELDS = ['q', 'status', 'from', 'to'] as const;
export const PAYMENTS_CSV_PATH = `${PAYMENTS_PATH}.csv`;

/** The words of each status the filter offers: the payments' own pills say the same. */
const STATUS_WORDS = { pending: 'pending', verifying: 'verifying', done: 'paid' } as const;

/** The filter as the list reads it, and each bad field's error; the list goes on without the bad fields. */
export function readFilter(query: PaymentListQuery): { filter: PaymentFilter; valid: PaymentListQuery; errors: FieldError[] } {
  const asked: PaymentListQuery = { ...Object.fromEntries(FORM_FIELDS.map((f) => [f, query[f]])), cursor: query.cursor };
  try {
    return { filter: parsePaymentFilter(asked), valid: asked, errors: [] };
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind !== 'validation') throw error;
    const bad = new Set(error.fields.map((f) => f.field));
    const valid = Object.fromEntries(Object.entries(asked).filter(([name]) => !bad.has(name))) as PaymentListQuery;
    return { filter: parsePaymentFilter(valid), valid, errors: error.fields };
  }
}

/** The address of the list (or its CSV) with the same filters, starting at `cursor`. */
export function filteredPath(path: string, query: PaymentListQuery, cursor?: string): string {
  const params = new URLSearchParams();
  for (const name of FORM_FIELDS) if (query[name]) params.set(name, query[name]!);
  if (cursor) params.set('cursor', cursor);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function filterForm(frame: DashboardFrame, query: PaymentListQuery, errors: readonly FieldError[]): Html {
  const p = frame.w.payments;
  const bad = new Set(errors.map((e) => e.field));
  const invalid = (name: string) => (bad.has(name) ? html` aria-invalid="true" aria-describedby="${name}-error"` : '');
  const error = (name: string) => (bad.has(name) ? html`<p class="field-error" id="${name}-error">${frame.w.filterErrors[name]}</p>` : '');
  const word = frame.w.statuses.payment;
  return html`<form method="get" action="${PAYMENTS_PATH}" class="filters" role="search">
<div><label for="q">${p.search}</label><input type="text" id="q" name="q" value="${query.q ?? ''}" placeholder="${p.searchHelp}" size="32"${invalid('q')}>${error('q')}</div>
<div><label for="status">${p.status}</label><select id="status" name="status"${invalid('status')}><option value="">${p.any}</option>${PAYMENT_STATUSES.map(
    (s) => html`<option value="${s}"${query.status === s ? html` selected` : ''}>${word[STATUS_WORDS[s]]}</option>`,
  )}</select>${error('status')}</div>
<div><label for="from">${p.from}</label><input type="date" id="from" name="from" value="${query.from ?? ''}"${invalid('from')}>${error('from')}</div>
<div><label for="to">${p.to}</label><input type="date" id="to" name="to" value="${query.to ?? ''}"${invalid('to')}>${error('to')}</div>
<div><button id="filter">${p.filter}</button></div>
</form>${bad.has('cursor') ? html`<p class="error" role="alert">${frame.w.filterErrors.cursor}</p>` : ''}`;
}

function table(frame: DashboardFrame, payments: readonly Payment[]): Html {
  const { w, m } = frame;
  if (payments.length === 0) return html`<p class="none">${w.payments.none}</p>`;
  return dataTable(
    'payments',
    [
      { label: w.payments.created },
      { label: m.subject },
      { label: m.amount, className: 'number' },
      { label: w.payments.status },
      { label: w.email },
      { label: 'ID' },
    ],
    payments.map((p) => ({
      attributes: html`data-payment-id="${p.paymentId}"`,
      cells: [
        when(p.createdAt, m),
        html`<a href="${paymentPath(p.paymentId)}" class="subject">${p.subject}</a>`,
        formatMoney(p.amount, p.currency, m),
        paymentPill(w, p),
        p.payerEmail ?? '',
        idCode(p.paymentId),
      ],
    })),
  );
}

export function paymentListRoutes(app: FastifyInstance): void {
  app.get<{ Querystring: PaymentListQuery & { done?: string } }>(PAYMENTS_PATH, async (request, reply) => {
    const query = request.query;
    const frame = frameOf(request, reply, PAYMENTS_PATH);
    const { w } = frame;
    const done = query.done && Object.hasOwn(w.payments.done, query.done) ? w.payments.done[query.done] : undefined;
    const { filter, valid, errors } = readFilter(query);
    const page = await listPayments(request.ctx, sessionOf(request).merchant, filter);
    return sendPage(
      reply,
      frame,
      errors.length > 0 ? 400 : 200,
      w.nav.payments,
      html`${done ? html`<p class="notice" role="status">${done}</p>` : ''}${filterForm(frame, query, errors)}
${errors.length > 0 ? html`<p class="notice" id="filter-notice">${w.filterErrors.shown}</p>` : ''}
<p class="list-tools"><a href="${filteredPath(PAYMENTS_CSV_PATH, valid)}" id="export" download>${w.payments.export}</a></p>
${table(frame, page.payments)}${page.nextCursor ? html`<p><a href="${filteredPath(PAYMENTS_PATH, valid, page.nextCursor)}" id="next">${w.payments.next}</a></p>` : ''}`,
    );
  });
}
