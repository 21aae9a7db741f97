// The payments list: the filters of the JSON list (status, dates, text search) as a GET form, so a
// filtered page is a link; keyset paging through the same listPayments. A bad filter renders the
// form again naming every offending field.
import type { FastifyInstance } from 'fastify';
import { listPayments } from '../../app/payment-list.js';
import { DomainError } from '../../domain/errors.js';
import type { Payment } from '../../domain/payment.js';
import { type PaymentListQuery, parsePaymentFilter } from '../../domain/payment-filter.js';
import { PAYMENT_STATUSES } from '../../domain/payment-status.js';
import { formatInstant, formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { errorLine } from '../payer/pages.js';
import { type DashboardFrame, frameOf, sendPage, sessionOf } from './layout.js';
import { paymentPath, PAYMENTS_PATH } from './payment-page.js';

const FORM_FIELDS = ['q', 'status', 'from', 'to'] as const;

function filterForm(frame: DashboardFrame, query: PaymentListQuery): Html {
  const p = frame.w.payments;
  return html`<form method="get" action="${PAYMENTS_PATH}" class="filters" role="search">
<div><label for="q">${p.search}</label><input type="text" id="q" name="q" value="${query.q ?? ''}" placeholder="${p.searchHelp}" size="32"></div>
<div><label for="status">${p.status}</label><select id="status" name="status"><option value="">${p.any}</option>${PAYMENT_STATUSES.map(
    (s) => html`<option value="${s}"${query.status === s ? html` selected` : ''}>${s}</option>`,
  )}</select></div>
<div><label for="from">${p.from}</label><input type="date" id="from" name="from" value="${query.from ?? ''}"></div>
<div><label for="to">${p.to}</label><input type="date" id="to" name="to" value="${query.to ?? ''}"></div>
<div><button id="filter">${p.filter}</button></div>
</form>`;
}

function table(frame: DashboardFrame, payments: readonly Payment[]): Html {
  const { w, m } = frame;
  if (payments.length === 0) return html`<p class="none">${w.payments.none}</p>`;
  return html`<table class="payments"><thead><tr><th>${w.payments.created}</th><th>${m.subject}</th><th class="number">${m.amount}</th><th>${w.payments.status}</th><th>${w.email}</th><th>ID</th></tr></thead><tbody>
${payments.map(
  (p) =>
    html`<tr data-payment-id="${p.paymentId}"><td>${formatInstant(p.createdAt, m)}</td><td><a href="${paymentPath(p.paymentId)}" class="subject">${p.subject}</a></td><td class="number">${formatMoney(p.amount, p.currency, m)}</td><td>${p.status} / ${p.statusDetail}</td><td>${p.payerEmail ?? ''}</td><td><code>${p.paymentId}</code></td></tr>`,
)}
</tbody></table>`;
}

/** The list's address with the same filters, starting at `cursor`. */
function nextPath(query: PaymentListQuery, cursor: string): string {
  const params = new URLSearchParams();
  for (const name of FORM_FIELDS) if (query[name]) params.set(name, query[name]!);
  params.set('cursor', cursor);
  return `${PAYMENTS_PATH}?${params}`;
}

export function paymentListRoutes(app: FastifyInstance): void {
  app.get<{ Querystring: PaymentListQuery & { done?: string } }>(PAYMENTS_PATH, async (request, reply) => {
    const query = request.query;
    const frame = frameOf(request, reply, PAYMENTS_PATH);
    const title = frame.w.nav.payments;
    const notice = query.done ? frame.w.payments.done[query.done] : undefined;
    let filter;
    try {
      filter = parsePaymentFilter({ ...Object.fromEntries(FORM_FIELDS.map((f) => [f, query[f]])), cursor: query.cursor });
    } catch (error) {
      if (!(error instanceof DomainError) || error.kind !== 'validation') throw error;
      return sendPage(reply, frame, 400, title, html`${filterForm(frame, query)}${error.fields.map((f) => errorLine(`${f.field}: ${f.message}`))}`);
    }
    const page = await listPayments(request.ctx, sessionOf(request).merchant, filter);
    return sendPage(
      reply,
      frame,
      200,
      title,
      html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${filterForm(frame, query)}${table(frame, page.payments)}${page.nextCursor ? html`<p><a href="${nextPath(query, page.nextCursor)}" id="next">${frame.w.payments.next}</a></p>` : ''}`,
    );
  });
}
