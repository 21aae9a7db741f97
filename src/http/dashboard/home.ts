// The dashboard's home: today's and the last 30 days' payments per currency, a chart of the amount
// paid per day in the account's main currency, and what needs attention.
import type { FastifyInstance } from 'fastify';
import { accountOverview, type AccountOverview } from '../../app/account-overview.js';
import type { CurrencyTotals, DayTotal } from '../../domain/payment-totals.js';
import { findBank } from '../../domain/banks.js';
import { formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { barChart } from './chart.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, frameOf, sendPage, sessionOf } from './layout.js';
import { DASHBOARD_PATH } from './session-cookie.js';

function figures(frame: DashboardFrame, title: string, currency: string, total: DayTotal): Html {
  const { w, m } = frame;
  return html`<div class="card"><h3>${title} · ${currency}</h3>
<dl><dt>${w.home.created}</dt><dd class="created">${total.created}</dd>
<dt>${w.home.paid}</dt><dd class="paid">${total.paid}</dd>
<dt>${w.home.amountPaid}</dt><dd class="figure amount-paid">${formatMoney(total.amountPaid, currency, m)}</dd></dl></div>`;
}

function totalsSection(frame: DashboardFrame, totals: CurrencyTotals[]): Html {
  const { w, m } = frame;
  const main = totals[0];
  if (!main) return html`<p class="none">${w.home.noPayments}</p>`;
  const max = Math.max(...main.days.map((d) => d.amountPaid));
  const chart = barChart(
    w.home.chart(main.currency),
    main.days.map((d) => ({ label: d.day, value: d.amountPaid, title: `${d.day}: ${formatMoney(d.amountPaid, main.currency, m)} (${d.paid}/${d.created})` })),
    formatMoney(max, main.currency, m),
  );
  return html`<div class="cards totals">${totals.map((t) => html`${figures(frame, w.home.today, t.currency, t.today)}${figures(frame, w.home.last30, t.currency, t.period)}`)}</div>
<h2>${w.home.chart(main.currency)}</h2>
${chart}`;
}

function attentionSection(frame: DashboardFrame, overview: AccountOverview): Html {
  const { w, m } = frame;
  if (overview.exhausted.length === 0 && overview.uncertain.length === 0) return html`<p class="none">${w.home.nothing}</p>`;
  return html`${
    overview.exhausted.length > 0
      ? html`<h3>${w.home.exhausted}</h3><ul class="exhausted">${overview.exhausted.map(
          (message) =>
            html`<li><a href="${DASHBOARD_PATH}/events/${message.message_id}"><code>${message.kind}</code></a> · ${idCode(message.subject_id)} · ${when(new Date(message.updated_at), m)}</li>`,
        )}</ul>`
      : ''
  }
${
  overview.uncertain.length > 0
    ? html`<h3>${w.home.uncertain}</h3><ul class="uncertain">${overview.uncertain.map(
        (attempt) =>
          html`<li>${idCode(attempt.paymentId, `${DASHBOARD_PATH}/payments/${attempt.paymentId}`)} · ${findBank(attempt.bankId, true)?.name ?? attempt.bankId} · ${when(attempt.updatedAt, m)}</li>`,
      )}</ul>`
    : ''
}`;
}

export function homeRoutes(app: FastifyInstance): void {
  app.get(DASHBOARD_PATH, async (request, reply) => {
    const frame = frameOf(request, reply, DASHBOARD_PATH);
    const overview = await accountOverview(request.ctx, sessionOf(request).merchant);
    return sendPage(
      reply,
      frame,
      200,
      frame.w.title,
      html`${totalsSection(frame, overview.totals)}
<h2>${frame.w.home.attention}</h2>
${attentionSection(frame, overview)}`,
    );
  });
}
