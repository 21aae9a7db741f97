// The account's subscriptions (automatic payments): a list, and one subscription with its mandate's
// history and its charges; in developer mode, DemoBank's decisions on the mandate and on each
// charge, as `quipu demobank mandates|charges` take them. A decision the state refuses says why.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ChargeDecision, decideDemoCharge, decideDemoMandate, type MandateDecision } from '../../app/demobank-decisions.js';
import { getSubscriptionDetail, recentSubscriptions } from '../../app/subscription-queries.js';
import { DEMO_BANK_ID } from '../../domain/banks.js';
import { DomainError } from '../../domain/errors.js';
import { wireStatus } from '../../domain/mandate-status.js';
import { formatInstant, formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { csrfField } from '../payer/pages.js';
import { type DashboardFrame, frameOf, may, sendPage, sessionOf } from './layout.js';
import { paymentPath } from './payment-page.js';
import { DASHBOARD_PATH } from './session-cookie.js';

const SUBSCRIPTIONS_PATH = `${DASHBOARD_PATH}/subscriptions`;
export const subscriptionPath = (id: string) => `${SUBSCRIPTIONS_PATH}/${id}`;
const LIST_SIZE = 100;
const MANDATE_DECISIONS: readonly MandateDecision[] = ['approve', 'reject', 'revoke'];
const CHARGE_DECISIONS: readonly ChargeDecision[] = ['settle', 'fail'];

type Params = { id: string };

const decisionForm = (frame: DashboardFrame, action: string, label: string) =>
  html`<form method="post" action="${action}">${csrfField(frame.csrf)}<button class="secondary">${label}</button></form>`;

async function showSubscription(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, notice?: Html) {
  const { merchant } = sessionOf(request);
  const path = subscriptionPath(request.params.id);
  const frame = frameOf(request, reply, path);
  const { m, w } = frame;
  const s = w.subscriptions;
  const { subscription, history, charges } = await getSubscriptionDetail(request.ctx, merchant, request.params.id);
  const decisions = request.ctx.config.sandbox && merchant.developer && subscription.bankId === DEMO_BANK_ID && may(frame, 'demobank.decide');
  return sendPage(
    reply,
    frame,
    status,
    subscription.name,
    html`${notice ?? ''}
<dl><dt>subscription_id</dt><dd>${subscription.subscriptionId}</dd>
<dt>${s.status}</dt><dd id="status">${wireStatus(subscription.state)} (${subscription.state})</dd>
<dt>${s.maxAmount}</dt><dd>${formatMoney(subscription.maxAmount, subscription.currency, m)}</dd>
<dt>service_reference</dt><dd>${subscription.serviceReference ?? '—'}</dd>
<dt>description</dt><dd>${subscription.description ?? '—'}</dd>
<dt>email</dt><dd>${subscription.email}</dd>
<dt>notify_url</dt><dd>${subscription.notifyUrl}</dd></dl>
${decisions ? html`<div class="actions">${MANDATE_DECISIONS.map((d) => decisionForm(frame, `${path}/${d}`, s[d]))}</div>` : ''}
<h2>${s.history}</h2>
<ol class="timeline">${history.map((c) => html`<li><time>${formatInstant(c.changedAt, m)}</time>${c.event}: ${c.from} → ${c.to} (${c.origin}) ${c.reason}</li>`)}</ol>
<h2>${s.charges}</h2>
${
  charges.length === 0
    ? html`<p class="none">${s.noCharges}</p>`
    : html`<table class="charges"><tbody>${charges.map(
        (
          c,
        ) => html`<tr><td><a href="${paymentPath(c.paymentId)}">${c.paymentId}</a></td><td class="number">${formatMoney(c.amount, c.currency, m)}</td><td>${c.state}${c.failure ? ` (${c.failure})` : ''}</td><td>${formatInstant(c.createdAt, m)}</td>
<td>${decisions && (c.state === 'due' || c.state === 'submitted') ? CHARGE_DECISIONS.map((d) => decisionForm(frame, `${path}/charges/${c.paymentId}/${d}`, s[d])) : ''}</td></tr>`,
      )}</tbody></table>`
}`,
  );
}

/** Applies a DemoBank decision; the state's refusal is shown on the subscription's page. */
async function decide(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, work: () => Promise<unknown>) {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof DomainError) || (error.kind !== 'state' && error.kind !== 'forbidden')) throw error;
    const w = frameOf(request, reply, '').w;
    return showSubscription(
      request,
      reply,
      error.kind === 'state' ? 409 : 403,
      html`<p class="error" role="status" id="notice">${w.payments.refused} ${error.message}</p>`,
    );
  }
  return reply.redirect(`${subscriptionPath(request.params.id)}?done=decision`, 303);
}

export function subscriptionRoutes(app: FastifyInstance): void {
  app.get(SUBSCRIPTIONS_PATH, async (request, reply) => {
    const frame = frameOf(request, reply, SUBSCRIPTIONS_PATH);
    const { m, w } = frame;
    const list = await recentSubscriptions(request.ctx, sessionOf(request).merchant, LIST_SIZE);
    return sendPage(
      reply,
      frame,
      200,
      w.nav.subscriptions,
      list.length === 0
        ? html`<p class="none">${w.subscriptions.none}</p>`
        : html`<table class="subscriptions"><thead><tr><th>${w.subscriptions.name}</th><th>${w.subscriptions.status}</th><th class="number">${w.subscriptions.maxAmount}</th><th>${w.payments.created}</th></tr></thead><tbody>${list.map(
            (s) =>
              html`<tr><td><a href="${subscriptionPath(s.subscriptionId)}">${s.name}</a></td><td>${wireStatus(s.state)}</td><td class="number">${formatMoney(s.maxAmount, s.currency, m)}</td><td>${formatInstant(s.createdAt, m)}</td></tr>`,
          )}</tbody></table>`,
    );
  });

  app.get<{ Params: Params; Querystring: { done?: string } }>(subscriptionPath(':id'), async (request, reply) => {
    const decided = request.query.done === 'decision' ? frameOf(request, reply, '').w.subscriptions.decided : undefined;
    return showSubscription(request, reply, 200, decided ? html`<p class="notice" role="status" id="notice">${decided}</p>` : undefined);
  });

  for (const decision of MANDATE_DECISIONS) {
    app.post<{ Params: Params }>(
      `${subscriptionPath(':id')}/${decision}`,
      { preHandler: app.csrfProtection, config: { dashboardAction: 'demobank.decide' } },
      async (request, reply) => decide(request, reply, () => decideDemoMandate(request.ctx, request.params.id, decision, sessionOf(request).merchant)),
    );
  }
  for (const decision of CHARGE_DECISIONS) {
    app.post<{ Params: Params & { paymentId: string } }>(
      `${subscriptionPath(':id')}/charges/:paymentId/${decision}`,
      { preHandler: app.csrfProtection, config: { dashboardAction: 'demobank.decide' } },
      async (request, reply) => decide(request, reply, () => decideDemoCharge(request.ctx, request.params.paymentId, decision, sessionOf(request).merchant)),
    );
  }
}
