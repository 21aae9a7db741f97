// The account's subscriptions (automatic payments): a list, and one subscription with its mandate's
// history and its charges; in developer mode, DemoBank's decisions on the mandate and on each
// charge, as `quipu demobank mandates|charges` take them, only those the mandate's state allows
// (approve and reject a mandate waiting for the bank, revoke one signed or in force). Rejecting and
// revoking end the mandate for good: they are confirmed on a page of their own first. A decision
// refused all the same (a race) comes back to the subscription's page saying why in its language.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ChargeDecision, decideDemoCharge, decideDemoMandate, type MandateDecision } from '../../app/demobank-decisions.js';
import { getSubscriptionDetail, recentSubscriptions } from '../../app/subscription-queries.js';
import { DEMO_BANK_ID } from '../../domain/banks.js';
import { canApplyMandateEvent, type MandateEvent, type MandateState } from '../../domain/mandate-status.js';
import type { Subscription } from '../../domain/subscription.js';
import { formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import type { MandateChange } from '../../store/subscriptions.js';
import { csrfField } from '../payer/pages.js';
import { confirmationContent } from './confirm.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, frameOf, may, sendPage, sessionOf } from './layout.js';
import { paymentPath } from './payment-page.js';
import { isRefusal, markRefused, refusalCode, refusalText } from './refusals.js';
import { mandatePill, statusPill, subscriptionPill } from './statuses.js';
import { dataTable } from './table.js';
import { DASHBOARD_PATH } from './session-cookie.js';

const SUBSCRIPTIONS_PATH = `${DASHBOARD_PATH}/subscriptions`;
export const subscriptionPath = (id: string) => `${SUBSCRIPTIONS_PATH}/${id}`;
const LIST_SIZE = 100;
const MANDATE_DECISIONS: readonly MandateDecision[] = ['approve', 'reject', 'revoke'];
const CHARGE_DECISIONS: readonly ChargeDecision[] = ['settle', 'fail'];
/** The decisions that end the mandate for good. */
const CONFIRMED: readonly MandateDecision[] = ['reject', 'revoke'];

/** The mandate move each decision makes. Rejecting needs a signature at DemoBank to reject: a created mandate has none yet. */
const DECISION_EVENT: Readonly<Record<MandateDecision, MandateEvent>> = { approve: 'enabled-by-bank', reject: 'rejected-by-bank', revoke: 'revoked-by-payer' };
const allowedDecision = (state: MandateState, decision: MandateDecision) => state !== 'created' && canApplyMandateEvent(state, DECISION_EVENT[decision]);

type Params = { id: string };

/** Whether this page's user may take DemoBank's decisions on this subscription at all. */
function decides(request: FastifyRequest, frame: DashboardFrame, subscription: Subscription): boolean {
  return request.ctx.config.sandbox && sessionOf(request).merchant.developer && subscription.bankId === DEMO_BANK_ID && may(frame, 'demobank.decide');
}

function decisionButton(frame: DashboardFrame, path: string, decision: MandateDecision): Html {
  const label = frame.w.subscriptions[decision];
  if (CONFIRMED.includes(decision)) return html`<a class="button danger" href="${path}/${decision}" id="${decision}">${label}…</a>`;
  return html`<form method="post" action="${path}/${decision}">${csrfField(frame.csrf)}<button class="secondary" id="${decision}">${label}</button></form>`;
}

/** A line of the mandate's history: what happened, in the page's words; the bank's own words when it refused or the payer revoked. */
function historyLine(frame: DashboardFrame, change: MandateChange): Html {
  const s = frame.w.subscriptions;
  const bankSaid = change.event === 'rejected-by-bank' || change.event === 'revoked-by-payer' ? html` <q class="reason">${change.reason}</q>` : '';
  return html`<li>${when(change.changedAt, frame.m)}<span title="${change.reason}">${s.events[change.event]}${change.origin === 'developer' ? ` · ${s.byDeveloper}` : ''}</span> ${mandatePill(frame.w, change.from)} → ${mandatePill(frame.w, change.to)}${bankSaid}</li>`;
}

async function showSubscription(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, notice?: Html) {
  const { merchant } = sessionOf(request);
  const path = subscriptionPath(request.params.id);
  const frame = frameOf(request, reply, path);
  const { m, w } = frame;
  const s = w.subscriptions;
  const { subscription, history, charges } = await getSubscriptionDetail(request.ctx, merchant, request.params.id);
  const decisions = decides(request, frame, subscription);
  const allowed = decisions ? MANDATE_DECISIONS.filter((d) => allowedDecision(subscription.state, d)) : [];
  return sendPage(
    reply,
    frame,
    200,
    subscription.name,
    html`${notice ?? ''}
<dl class="fields"><dt>subscription_id</dt><dd>${idCode(subscription.subscriptionId)}</dd>
<dt>${s.status}</dt><dd id="status">${subscriptionPill(w, subscription.state)}</dd>
<dt>${s.maxAmount}</dt><dd>${formatMoney(subscription.maxAmount, subscription.currency, m)}</dd>
<dt>service_reference</dt><dd>${subscription.serviceReference ?? '—'}</dd>
<dt>description</dt><dd>${subscription.description ?? '—'}</dd>
<dt>email</dt><dd>${subscription.email}</dd>
<dt>notify_url</dt><dd>${subscription.notifyUrl}</dd></dl>
${allowed.length > 0 ? html`<div class="actions">${allowed.map((d) => decisionButton(frame, path, d))}</div>` : ''}
<h2>${s.history}</h2>
<ol class="timeline">${history.map((c) => historyLine(frame, c))}</ol>
<h2>${s.charges}</h2>
${
  charges.length === 0
    ? html`<p class="none">${s.noCharges}</p>`
    : dataTable(
        'charges',
        [
          { label: w.payments.payment },
          { label: frame.m.amount, className: 'number' },
          { label: s.status },
          { label: w.payments.created },
          { label: w.payments.actions, className: 'action' },
        ],
        charges.map((c) => ({
          cells: [
            idCode(c.paymentId, paymentPath(c.paymentId)),
            formatMoney(c.amount, c.currency, m),
            html`${statusPill(w, 'charge', c.state)}${c.failure ? html` <q class="reason">${c.failure}</q>` : ''}`,
            when(c.createdAt, m),
            decisions && (c.state === 'due' || c.state === 'submitted')
              ? CHARGE_DECISIONS.map(
                  (d) =>
                    html`<form method="post" action="${path}/charges/${c.paymentId}/${d}">${csrfField(frame.csrf)}<button class="secondary">${s[d]}</button></form>`,
                )
              : '',
          ],
        })),
      )
}`,
  );
}

/** Applies a DemoBank decision; a refusal comes back to the subscription's page, named. */
async function decide(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, work: () => Promise<unknown>) {
  try {
    await work();
  } catch (error) {
    if (!isRefusal(error)) throw error;
    markRefused(request);
    return reply.redirect(`${subscriptionPath(request.params.id)}?refused=${refusalCode(error)}`, 303);
  }
  return reply.redirect(`${subscriptionPath(request.params.id)}?done=decision`, 303);
}

/** The confirmation page of a decision that ends the mandate, or back to the subscription when its state no longer allows it. */
async function confirmDecision(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, decision: MandateDecision) {
  const path = subscriptionPath(request.params.id);
  const frame = frameOf(request, reply, `${path}/${decision}`);
  const { subscription } = await getSubscriptionDetail(request.ctx, sessionOf(request).merchant, request.params.id);
  if (!decides(request, frame, subscription) || !allowedDecision(subscription.state, decision)) {
    markRefused(request);
    return reply.redirect(`${path}?refused=state`, 303);
  }
  const s = frame.w.subscriptions;
  return sendPage(
    reply,
    frame,
    200,
    s.confirmQuestion[decision] ?? s[decision],
    confirmationContent(frame, {
      details: html`<p>${s.confirmDetails[decision]}</p><dl><dt>${s.name}</dt><dd>${subscription.name}</dd><dt>subscription_id</dt><dd>${idCode(subscription.subscriptionId)}</dd></dl>`,
      action: `${path}/${decision}`,
      button: s[decision],
      back: path,
    }),
  );
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
        : dataTable(
            'subscriptions',
            [
              { label: w.subscriptions.name },
              { label: w.subscriptions.status },
              { label: w.subscriptions.maxAmount, className: 'number' },
              { label: w.payments.created },
            ],
            list.map((s) => ({
              cells: [
                html`<a href="${subscriptionPath(s.subscriptionId)}">${s.name}</a>`,
                subscriptionPill(w, s.state),
                formatMoney(s.maxAmount, s.currency, m),
                when(s.createdAt, m),
              ],
            })),
          ),
    );
  });

  app.get<{ Params: Params; Querystring: { done?: string; refused?: string } }>(subscriptionPath(':id'), async (request, reply) => {
    const { w } = frameOf(request, reply, '');
    const refusal = refusalText(w, request.query.refused, {});
    if (refusal) return showSubscription(request, reply, html`<p class="error" role="alert" id="notice">${w.payments.refused} ${refusal}</p>`);
    const decided = request.query.done === 'decision' ? w.subscriptions.decided : undefined;
    return showSubscription(request, reply, decided ? html`<p class="notice" role="status" id="notice">${decided}</p>` : undefined);
  });

  for (const decision of CONFIRMED) {
    app.get<{ Params: Params }>(`${subscriptionPath(':id')}/${decision}`, async (request, reply) => confirmDecision(request, reply, decision));
  }
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
