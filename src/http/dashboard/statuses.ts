// Statuses as the merchant reads them: a word of the page's language in a coloured pill, the API's
// value in its tooltip (and in data-value, for scripts and tests). The colour says how things stand:
// done, waiting, refused or failed, over, or money gone back.
import { STATUS_CODES } from 'node:http';
import type { MandateState } from '../../domain/mandate-status.js';
import { wireStatus } from '../../domain/mandate-status.js';
import type { Payment } from '../../domain/payment.js';
import { type Html, html } from '../../render/html.js';
import type { DashboardWords } from './words.js';

type Tone = 'ok' | 'wait' | 'bad' | 'off' | 'back';

const pill = (tone: Tone, word: string, apiValue: string): Html =>
  html`<span class="pill pill-${tone}" title="${apiValue}" data-value="${apiValue}">${word}</span>`;

/** A payment's status and status_detail; a payment paid and refunded in part says so. */
export function paymentPill(w: DashboardWords, payment: Pick<Payment, 'status' | 'statusDetail' | 'refunded'>): Html {
  const p = w.statuses.payment;
  const api = `status: ${payment.status} · status_detail: ${payment.statusDetail}`;
  switch (payment.statusDetail) {
    case 'normal':
      return payment.refunded > 0 ? pill('back', p.partlyRefunded, api) : pill('ok', p.paid, api);
    case 'marked-paid-by-receiver':
      return pill('ok', p.markedPaid, api);
    case 'reversed':
      return pill('back', p.refunded, api);
    case 'rejected-by-payer':
      return pill('bad', p.declined, api);
    case 'marked-as-abuse':
      return pill('bad', p.abuse, api);
    case 'pending':
      return payment.status === 'verifying' ? pill('wait', p.verifying, api) : pill('off', p.pending, api);
  }
}

const TONES = {
  message: { pending: 'wait', delivered: 'ok', exhausted: 'bad', cancelled: 'off' },
  attempt: { delivered: 'ok', failed: 'bad' },
  transfer: { started: 'off', authenticated: 'wait', authorizing: 'wait', executed: 'ok', uncertain: 'wait', failed: 'bad' },
  charge: { due: 'wait', submitting: 'wait', submitted: 'wait', uncertain: 'wait', settled: 'ok', failed: 'bad', cancelled: 'off' },
  operation: { OK: 'ok', ERROR: 'bad', WARNING: 'wait', CONTINUE: 'off' },
  audit: { ok: 'ok', refused: 'bad', failed: 'bad' },
} satisfies Record<string, Record<string, Tone>>;

/** Any other status: its word in `w.statuses[kind]`, or the API's value itself when the words do not know it yet. */
export function statusPill(w: DashboardWords, kind: keyof typeof TONES, value: string): Html {
  const tone: Tone = (TONES[kind] as Record<string, Tone>)[value] ?? 'off';
  return pill(tone, (w.statuses[kind] as Record<string, string>)[value] ?? value, value);
}

const MANDATE_TONES: Readonly<Record<MandateState, Tone>> = {
  created: 'off',
  signed: 'wait',
  enabled: 'ok',
  'bank-rejected': 'bad',
  'revoked-by-payer': 'bad',
};

/** A subscription: the word of its status on the wire (ENABLED, SIGNED, DISABLED), which the tooltip gives with the mandate's state. */
export function subscriptionPill(w: DashboardWords, state: MandateState): Html {
  const status = wireStatus(state);
  return pill(MANDATE_TONES[state], w.statuses.subscription[status] ?? status, `${status} · ${state}`);
}

/** A mandate's state in its history. */
export const mandatePill = (w: DashboardWords, state: string): Html =>
  pill(MANDATE_TONES[state as MandateState] ?? 'off', w.statuses.mandate[state] ?? state, state);

/** The HTTP status of an API answer: the code, its reason phrase in the tooltip; errors red. */
export const httpStatusPill = (status: number): Html =>
  pill(status >= 400 ? 'bad' : status >= 300 ? 'off' : 'ok', String(status), `${status} ${STATUS_CODES[status] ?? ''}`.trim());

/** What the API did not do as asked (fields it ignored), seen at a glance; `detail`, the whole of it, in the tooltip. */
export const warningPill = (text: string, detail: string): Html => pill('wait', text, detail);
