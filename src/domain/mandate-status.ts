// THE transition table of a subscription's mandate. Quipu keeps a richer lifecycle than the
// contract shows: each state says who put the mandate there, and the wire shows only DISABLED,
// SIGNED or ENABLED (upper case in the status read, lower case in the signing notification).
import { canMove, nextState, type Transitions } from './state-machine.js';

export const MANDATE_STATES = [
  /** Created by the merchant; the payer has not signed (or abandoned signing and may come back). */
  'created',
  /** The payer signed at their bank; the bank has not activated the mandate yet. */
  'signed',
  /** The bank activated the mandate: the merchant may charge it. */
  'enabled',
  /** The bank refused the mandate at signing or instead of activating it. Terminal. */
  'bank-rejected',
  /** The payer revoked the mandate at their bank. Terminal. */
  'revoked-by-payer',
] as const;
export type MandateState = (typeof MANDATE_STATES)[number];

export type MandateEvent =
  /** The payer signed the mandate at their bank. */
  | 'signed'
  /** The bank activated the signed mandate. */
  | 'enabled-by-bank'
  /** The bank refused the mandate. */
  | 'rejected-by-bank'
  /** The payer revoked the mandate at their bank. */
  | 'revoked-by-payer';

/** Who caused a change, kept in the subscription's history. */
export type MandateOrigin = 'payer' | 'bank' | 'developer';

export const MANDATE_TRANSITIONS: Transitions<MandateEvent, MandateState> = {
  signed: { from: ['created'], to: 'signed' },
  'enabled-by-bank': { from: ['signed'], to: 'enabled' },
  'rejected-by-bank': { from: ['created', 'signed'], to: 'bank-rejected' },
  'revoked-by-payer': { from: ['signed', 'enabled'], to: 'revoked-by-payer' },
};

export function canApplyMandateEvent(state: MandateState, event: MandateEvent): boolean {
  return canMove(MANDATE_TRANSITIONS, state, event);
}

/** The mandate's state after `event`; throws IllegalTransition for a move not in the table. */
export function applyMandateEvent(state: MandateState, event: MandateEvent): MandateState {
  return nextState('mandate', MANDATE_TRANSITIONS, state, event);
}

export const WIRE_STATUSES = ['DISABLED', 'SIGNED', 'ENABLED'] as const;
export type WireStatus = (typeof WIRE_STATUSES)[number];

const WIRE_STATUS: Readonly<Record<MandateState, WireStatus>> = {
  created: 'DISABLED',
  signed: 'SIGNED',
  enabled: 'ENABLED',
  'bank-rejected': 'DISABLED',
  'revoked-by-payer': 'DISABLED',
};

/** The status the API shows: only an ENABLED subscription can be charged. */
export function wireStatus(state: MandateState): WireStatus {
  return WIRE_STATUS[state];
}

/** Why a charge is refused on a subscription in this state, or undefined when it may be charged. */
export function chargeRefusal(state: MandateState): string | undefined {
  switch (state) {
    case 'enabled':
      return undefined;
    case 'created':
      return 'the subscription is DISABLED: the payer has not signed its mandate yet';
    case 'signed':
      return 'the subscription is SIGNED: its bank has not activated the mandate yet';
    case 'bank-rejected':
      return 'the subscription is DISABLED: the bank rejected its mandate';
    case 'revoked-by-payer':
      return 'the subscription is DISABLED: the payer revoked its mandate';
  }
}

/** Whether the payer may still sign: a mandate the bank rejected or the payer revoked is over; the merchant creates a new subscription. */
export function isSignable(state: MandateState): boolean {
  return state === 'created';
}

/**
 * The signing notification's status after a change, or undefined when the change sends none:
 * signing finishes when the bank enables or rejects the mandate, and a revocation says `disabled`
 * too (the contract is silent on revocation; docs/automatic-payments.md).
 */
export function signingNotificationStatus(event: MandateEvent): 'enabled' | 'disabled' | undefined {
  if (event === 'enabled-by-bank') return 'enabled';
  if (event === 'rejected-by-bank' || event === 'revoked-by-payer') return 'disabled';
  return undefined;
}

/**
 * Changes in the order they were made. Two can share a millisecond (a mandate DemoBank activates as
 * it is signed), and their ids are random: each change starts from the state the one before left,
 * so within a millisecond the one that follows on comes next.
 */
export function inChainOrder<C extends { from: string; to: string; changedAt: Date }>(changes: C[]): C[] {
  const ordered: C[] = [];
  for (let i = 0; i < changes.length;) {
    let end = i;
    while (end < changes.length && changes[end]!.changedAt.getTime() === changes[i]!.changedAt.getTime()) end++;
    const left = changes.slice(i, end);
    while (left.length > 0) {
      const last = ordered.at(-1);
      const follows = left.findIndex((c) => (last ? c.from === last.to : !left.some((other) => other.to === c.from)));
      ordered.push(...left.splice(Math.max(follows, 0), 1));
    }
    i = end;
  }
  return ordered;
}
