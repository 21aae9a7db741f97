// A payment's page: every field of the Payment resource, its timeline, every message sent about it
// with each attempt, and the actions its state and the account's contract allow. Merchant and
// payer values (subject, body, custom, URLs, payer name and email) go through the escaping
// template and are never made links.
import type { Merchant } from '../../domain/merchant.js';
import { canApply, isDeletable, isPaidNormally } from '../../domain/payment-status.js';
import { fundsDelivered } from '../../domain/refund.js';
import { payerBlock } from '../../domain/payment-attempt.js';
import { DEMO_BANK_ID, findBank } from '../../domain/banks.js';
import type { PaymentHistory } from '../../app/payment-history.js';
import { formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import type { MessageAttemptRow, MessageRow } from '../../store/schema.js';
import { csrfField } from '../payer/pages.js';
import { paymentResource } from '../payment-resource.js';
import type { AuditAction } from '../../domain/audit.js';
import type { DashboardAction } from '../../domain/dashboard-roles.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, may } from './layout.js';
import { paymentPill, statusPill } from './statuses.js';
import { dataTable } from './table.js';
import { DASHBOARD_PATH } from './session-cookie.js';

export const PAYMENTS_PATH = `${DASHBOARD_PATH}/payments`;
export const paymentPath = (paymentId: string) => `${PAYMENTS_PATH}/${paymentId}`;
export const eventPath = (messageId: string) => `${DASHBOARD_PATH}/events/${messageId}`;

/** The actions a payment's page offers, by the path segment each posts to. */
export type PaymentAction =
  'refund' | 'confirm' | 'delete' | 'mark-paid' | 'demobank-pay' | 'demobank-pay-fail' | 'demobank-pay-uncertain' | 'demobank-confirm' | 'demobank-fail';

/** What the audit log calls each payment action. */
export const PAYMENT_ACTIONS_AUDITED: Readonly<Record<PaymentAction, AuditAction>> = {
  refund: 'payment.refund',
  confirm: 'payment.confirm',
  delete: 'payment.delete',
  'mark-paid': 'payment.mark-paid',
  'demobank-pay': 'demobank.decide',
  'demobank-pay-fail': 'demobank.decide',
  'demobank-pay-uncertain': 'demobank.decide',
  'demobank-confirm': 'demobank.decide',
  'demobank-fail': 'demobank.decide',
};

/** The roles' row each payment action falls under: the account's money, or DemoBank's test money. */
export const PAYMENT_ACTIONS_NEED: Readonly<Record<PaymentAction, DashboardAction>> = {
  refund: 'payment.manage',
  confirm: 'payment.manage',
  delete: 'payment.manage',
  'mark-paid': 'payment.manage',
  'demobank-pay': 'demobank.decide',
  'demobank-pay-fail': 'demobank.decide',
  'demobank-pay-uncertain': 'demobank.decide',
  'demobank-confirm': 'demobank.decide',
  'demobank-fail': 'demobank.decide',
};

export function allowedActions(history: PaymentHistory, merchant: Merchant, sandbox: boolean, now: Date): PaymentAction[] {
  const { payment } = history;
  const actions: PaymentAction[] = [];
  if (merchant.features.refunds && isPaidNormally(payment) && payment.refunded < payment.amount && !fundsDelivered(payment, now)) actions.push('refund');
  if (merchant.features.confirm && isPaidNormally(payment) && !payment.confirmedAt && !fundsDelivered(payment, now)) actions.push('confirm');
  if (isDeletable(payment)) actions.push('delete');
  if (canApply(payment, 'marked-paid-by-receiver')) actions.push('mark-paid');
  if (!sandbox || !merchant.developer) return actions;
  // DemoBank's scenarios, one click each: the payer's three steps with the scenario's coordinates.
  if (payerBlock(payment, now) === undefined) actions.push('demobank-pay', 'demobank-pay-fail', 'demobank-pay-uncertain');
  if (history.attempts.some((a) => a.state === 'uncertain' && a.bankId === DEMO_BANK_ID)) actions.push('demobank-confirm', 'demobank-fail');
  return actions;
}

/** The actions that destroy or give money back: a red button that opens a confirmation page first (confirm.ts). */
export const CONFIRMED_ACTIONS: readonly PaymentAction[] = ['refund', 'delete'];

interface TimelineEntry {
  at: Date;
  text: string;
}

function timeline(frame: DashboardFrame, history: PaymentHistory, now: Date): TimelineEntry[] {
  const { w, m } = frame;
  const { payment } = history;
  const entries: TimelineEntry[] = [{ at: payment.createdAt, text: w.timeline.created }];
  for (const attempt of history.attempts)
    entries.push({
      at: attempt.startedAt,
      text: w.timeline.attempt(findBank(attempt.bankId, true)?.name ?? attempt.bankId, w.statuses.transfer[attempt.state] ?? attempt.state),
    });
  if (payment.conciliationAt) entries.push({ at: payment.conciliationAt, text: w.timeline.conciliated });
  for (const refund of history.refunds) entries.push({ at: refund.createdAt, text: w.timeline.refund(formatMoney(refund.amount, payment.currency, m)) });
  if (payment.confirmedAt) entries.push({ at: payment.confirmedAt, text: w.timeline.confirmed });
  if (payment.fundsDeliveryAt)
    entries.push({ at: payment.fundsDeliveryAt, text: fundsDelivered(payment, now) ? w.timeline.fundsDelivered : w.timeline.fundsDelivery });
  return entries.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** The API fields that hold an id: shown as ids, with a copy button. */
const ID_FIELDS = new Set(['payment_id', 'receiver_id', 'subscription_id', 'operation_id', 'transaction_id']);

export const fieldValue = (value: unknown) =>
  value === null || value === undefined || value === '' ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** A field of an API resource as the page lists it: its name as the API spells it, its value, ids as ids. */
export const fieldRow = (name: string, value: unknown, attribute = 'data-field'): Html =>
  html`<dt>${name}</dt><dd ${attribute}="${name}">${ID_FIELDS.has(name) && typeof value === 'string' && value !== '' ? idCode(value) : fieldValue(value)}</dd>`;

function attemptTable(frame: DashboardFrame, attempts: readonly MessageAttemptRow[]): Html {
  const e = frame.w.events;
  if (attempts.length === 0) return html``;
  return dataTable(
    'attempts',
    [
      { label: e.number, className: 'number' },
      { label: e.started },
      { label: e.outcome },
      { label: e.code, className: 'number' },
      { label: e.latency, className: 'number' },
      { label: e.detail },
    ],
    attempts.map((a) => ({
      // One sent to another URL (the event page's "send to another URL") says where it went.
      attributes: a.url === null ? html`class="attempt"` : html`class="attempt elsewhere" data-sent-to="${a.url}"`,
      cells: [
        a.number,
        when(new Date(a.started_at), frame.m),
        html`<span class="outcome">${statusPill(frame.w, 'attempt', a.outcome)}</span>`,
        a.status_code ?? '',
        `${a.latency_ms} ms`,
        a.url === null
          ? (a.error ?? a.response_excerpt ?? '')
          : html`<span class="sent-to">${e.sentTo} <span class="destination">${a.url}</span></span> ${a.error ?? a.response_excerpt ?? ''}`,
      ],
    })),
  );
}

/** A message and its attempts, with its resend form; `back` is where the resend returns to. */
export function messageBlock(frame: DashboardFrame, message: MessageRow, attempts: readonly MessageAttemptRow[], back: string): Html {
  const e = frame.w.events;
  return html`<div class="message" data-message-id="${message.message_id}">
<p><a href="${eventPath(message.message_id)}"><code>${message.kind}</code></a> → <span class="destination">${message.url}</span> · ${statusPill(frame.w, 'message', message.status)} · ${e.attempts}: ${message.attempts}</p>
${attemptTable(frame, attempts)}
${message.status === 'cancelled' || !may(frame, 'message.resend') ? '' : html`<form method="post" action="${eventPath(message.message_id)}/resend">${csrfField(frame.csrf)}<input type="hidden" name="back" value="${back}"><button class="secondary resend">${e.resend}</button></form>`}
</div>`;
}

export interface ActionView {
  actions: readonly PaymentAction[];
  /** The refund amount to show again after a refusal. */
  refundAmount?: string;
  /** A refused field, marked on its input. */
  invalidField?: string;
}

function actionForms(frame: DashboardFrame, paymentId: string, view: ActionView): Html {
  const p = frame.w.payments;
  const { actions } = view;
  if (actions.length === 0) return html`<p class="none">${p.noActions}</p>`;
  const path = paymentPath(paymentId);
  const post = (name: PaymentAction, label: string) =>
    actions.includes(name)
      ? html`<form method="post" action="${path}/${name}">${csrfField(frame.csrf)}<button id="${name}"${name.startsWith('demobank') ? html` class="secondary"` : ''}>${label}</button></form>`
      : '';
  const invalid = view.invalidField === 'amount';
  return html`<div class="actions">
${
  actions.includes('refund')
    ? html`<form method="get" action="${path}/refund"><label for="refund-amount">${p.refundAmount}</label><input type="text" inputmode="decimal" id="refund-amount" name="amount" value="${view.refundAmount ?? ''}"${invalid ? html` aria-invalid="true" aria-describedby="notice"` : ''}><button class="danger" id="refund">${p.refund}…</button></form>`
    : ''
}
${post('confirm', p.confirm)}
${post('mark-paid', p.markPaid)}
${actions.includes('delete') ? html`<a class="button danger" href="${path}/delete" id="delete">${p.delete}…</a>` : ''}
${post('demobank-pay', p.demoPay)}
${post('demobank-pay-fail', p.demoPayFail)}
${post('demobank-pay-uncertain', p.demoPayUncertain)}
${post('demobank-confirm', p.demoConfirm)}
${post('demobank-fail', p.demoFail)}
</div>`;
}

export function paymentPage(
  frame: DashboardFrame,
  history: PaymentHistory,
  merchant: Merchant,
  view: ActionView & { baseUrl: string; now: Date; notice?: Html },
): Html {
  const { w, m } = frame;
  const { payment } = history;
  const fields = Object.entries(paymentResource(view.baseUrl, payment, merchant));
  const path = paymentPath(payment.paymentId);
  return html`${view.notice ?? ''}
<p class="amount">${formatMoney(payment.amount, payment.currency, m)} <span id="status">${paymentPill(w, payment)}</span></p>
<p class="payment-id">${idCode(payment.paymentId)}</p>
<h2>${w.payments.actions}</h2>
${actionForms(frame, payment.paymentId, view)}
<h2>${w.payments.timeline}</h2>
<ol class="timeline">${timeline(frame, history, view.now).map((entry) => html`<li>${when(entry.at, m)}${entry.text}</li>`)}</ol>
<h2>${w.payments.messages}</h2>
${history.messages.length === 0 ? html`<p class="none">${w.payments.noMessages}</p>` : history.messages.map(({ message, attempts }) => messageBlock(frame, message, attempts, path))}
<h2>${w.payments.fields}</h2>
<dl class="fields">${fields.map(([name, value]) => fieldRow(name, value))}</dl>`;
}
