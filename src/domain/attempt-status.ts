// THE transition table of a payer's attempt. A transfer is claimed (authenticated → authorizing)
// before its bank hears of it, so two requests reach the bank once; an attempt the bank left
// uncertain moves only on the bank's later answer.
import type { AttemptState, PaymentAttempt } from './payment-attempt.js';
import { type BankPayer, payerOfSession } from './bank-payer.js';
import { nextState, type Transitions } from './state-machine.js';

export type AttemptEvent =
  /** The bank accepted the payer's credentials. */
  | 'signed-in'
  /** A request claims the transfer to ask the bank now. */
  | 'claimed'
  /** The bank transferred. */
  | 'executed'
  /** The bank refused or failed the transfer. */
  | 'failed'
  /** The bank did not say (timeout, broken connection, a process that stopped while asking). */
  | 'unanswered';

export const ATTEMPT_TRANSITIONS: Transitions<AttemptEvent, AttemptState> = {
  'signed-in': { from: ['started'], to: 'authenticated' },
  claimed: { from: ['authenticated'], to: 'authorizing' },
  executed: { from: ['authorizing', 'uncertain'], to: 'executed' },
  failed: { from: ['authorizing', 'uncertain'], to: 'failed' },
  unanswered: { from: ['authorizing'], to: 'uncertain' },
};

export type AttemptChange = { event: 'signed-in'; payer: BankPayer } | { event: 'claimed' | 'executed' | 'unanswered' } | { event: 'failed'; message: string };

/** What a move writes: the new state and the payer or the failure that go with it. */
export type AttemptMove = Pick<PaymentAttempt, 'state'> &
  Partial<Pick<PaymentAttempt, 'personalIdentifier' | 'accountNumber' | 'payerName' | 'failure'>> & { at: Date };

/** The move `change` makes of an attempt in `from`; throws IllegalTransition for a move not in the table. */
export function attemptMove(from: AttemptState, change: AttemptChange, now: Date): AttemptMove {
  const state = nextState('payer attempt', ATTEMPT_TRANSITIONS, from, change.event);
  switch (change.event) {
    case 'signed-in':
      return { state, at: now, ...payerOfSession(change.payer) };
    case 'failed':
      return { state, at: now, failure: change.message };
    default:
      return { state, at: now };
  }
}
