// The one transition table of a payment's status and status_detail. Every state change of a
// payment, from any surface, is an event looked up here; anything not in the table is refused.
import { IllegalTransition } from './state-machine.js';

export const PAYMENT_STATUSES = ['pending', 'verifying', 'done'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const STATUS_DETAILS = ['pending', 'normal', 'marked-paid-by-receiver', 'rejected-by-payer', 'marked-as-abuse', 'reversed'] as const;
export type StatusDetail = (typeof STATUS_DETAILS)[number];

export interface PaymentState {
  status: PaymentStatus;
  statusDetail: StatusDetail;
}

export type PaymentEvent =
  /** The payer's bank accepted the transfer; the credit has not been reconciled yet. */
  | 'transfer-authorized'
  /** The bank reported that the authorised transfer did not happen; the payer may try again. */
  | 'transfer-failed'
  /** A credit to the collection account matched the payment. */
  | 'reconciled'
  /** The merchant declared the payment paid by other means. */
  | 'marked-paid-by-receiver'
  /** The payer declared they will not pay. */
  | 'rejected-by-payer'
  /** The payer declared they will not pay and that the charge was unsolicited. */
  | 'marked-as-abuse'
  /** Refunds now add up to the whole paid amount. */
  | 'refunded-in-full';

interface Rule {
  from: readonly PaymentState[];
  to: PaymentState;
}

const PENDING: PaymentState = { status: 'pending', statusDetail: 'pending' };
const VERIFYING: PaymentState = { status: 'verifying', statusDetail: 'pending' };
const PAID: PaymentState = { status: 'done', statusDetail: 'normal' };

// Declined and abusive payments stay `pending` in status: merchants ship on `done`, and a payer
// who refused has paid nothing. They are terminal all the same: no rule leaves them.
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentEvent, Rule>> = {
  'transfer-authorized': { from: [PENDING], to: VERIFYING },
  'transfer-failed': { from: [VERIFYING], to: PENDING },
  reconciled: { from: [PENDING, VERIFYING], to: PAID },
  'marked-paid-by-receiver': { from: [PENDING, VERIFYING], to: { status: 'done', statusDetail: 'marked-paid-by-receiver' } },
  'rejected-by-payer': { from: [PENDING], to: { status: 'pending', statusDetail: 'rejected-by-payer' } },
  'marked-as-abuse': { from: [PENDING], to: { status: 'pending', statusDetail: 'marked-as-abuse' } },
  'refunded-in-full': { from: [PAID], to: { status: 'done', statusDetail: 'reversed' } },
};

function same(a: PaymentState, b: PaymentState): boolean {
  return a.status === b.status && a.statusDetail === b.statusDetail;
}

export function canApply(state: PaymentState, event: PaymentEvent): boolean {
  return PAYMENT_TRANSITIONS[event].from.some((from) => same(from, state));
}

export function applyEvent(state: PaymentState, event: PaymentEvent): PaymentState {
  if (!canApply(state, event)) throw new IllegalTransition('payment', `${state.status}/${state.statusDetail}`, event);
  return PAYMENT_TRANSITIONS[event].to;
}

/** Only a payment the payer has not started paying may be deleted. */
export function isDeletable(state: PaymentState): boolean {
  return state.status === 'pending';
}

/** Paid through a transfer that reached the provider's account: the only money that can be refunded or confirmed. */
export function isPaidNormally(state: PaymentState): boolean {
  return same(state, PAID);
}

/** Still open for the payer: not paid, not declined. */
export function isPayable(state: PaymentState): boolean {
  return same(state, PENDING);
}

/** Every state a payment can be in: the first, and those the table moves payments from and to. */
export const PAYMENT_STATES: readonly PaymentState[] = [PENDING, ...Object.values(PAYMENT_TRANSITIONS).flatMap((rule) => [...rule.from, rule.to])].filter(
  (state, i, all) => all.findIndex((other) => same(other, state)) === i,
);

/** The status_details a payment in `status` can have. */
export const detailsIn = (status: PaymentStatus): StatusDetail[] => PAYMENT_STATES.filter((s) => s.status === status).map((s) => s.statusDetail);

/** The statuses a payment with `detail` can be in. */
export const statusesWith = (detail: StatusDetail): PaymentStatus[] => PAYMENT_STATES.filter((s) => s.statusDetail === detail).map((s) => s.status);
