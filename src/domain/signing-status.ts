// THE transition table of a payer's mandate-signing session. The signature is claimed
// (authenticated → signing) before the bank hears of it, so two requests reach the bank once; a
// signature the bank did not take (no answer, wrong coordinates) is released for the payer to answer again.
import type { MandateSigning, SigningState } from './mandate-signing.js';
import { type BankPayer, payerOfSession } from './bank-payer.js';
import { nextState, type Transitions } from './state-machine.js';

export type SigningEvent =
  /** The bank accepted the payer's credentials. */
  | 'signed-in'
  /** A request claims the signature to ask the bank now. */
  | 'claimed'
  /** The bank took nothing (it did not answer, or the coordinates were wrong): the payer may answer again. */
  | 'released'
  /** The bank took the signature. */
  | 'signed'
  /** The bank rejected the mandate. */
  | 'rejected';

export const SIGNING_TRANSITIONS: Transitions<SigningEvent, SigningState> = {
  'signed-in': { from: ['started'], to: 'authenticated' },
  claimed: { from: ['authenticated'], to: 'signing' },
  released: { from: ['signing'], to: 'authenticated' },
  signed: { from: ['signing'], to: 'signed' },
  rejected: { from: ['signing'], to: 'rejected' },
};

export type SigningChange = { event: 'signed-in'; payer: BankPayer } | { event: 'claimed' | 'released' | 'signed' } | { event: 'rejected'; message: string };

/** What a move writes: the new state and the payer or the failure that go with it. */
export type SigningMove = Pick<MandateSigning, 'state'> &
  Partial<Pick<MandateSigning, 'personalIdentifier' | 'accountNumber' | 'payerName' | 'failure'>> & { at: Date };

/** The move `change` makes of a session in `from`; throws IllegalTransition for a move not in the table. */
export function signingMove(from: SigningState, change: SigningChange, now: Date): SigningMove {
  const state = nextState('signing session', SIGNING_TRANSITIONS, from, change.event);
  switch (change.event) {
    case 'signed-in':
      return { state, at: now, ...payerOfSession(change.payer) };
    case 'rejected':
      return { state, at: now, failure: change.message };
    default:
      return { state, at: now };
  }
}
