// THE transition table of a charge's debit, and what each move writes besides the state. A debit
// reaches its bank at most once: it is claimed (due → submitting) before the bank hears of it,
// and a debit the bank may hold (submitting, submitted, uncertain) only moves on the bank's answer.
import { type Debit, DEBIT_QUESTION_RETRY_MS, type DebitState } from './debit.js';
import { nextState, type Transitions } from './state-machine.js';

export type DebitEvent =
  /** A process claims a due debit to submit it now. */
  | 'claimed'
  /** The bank's answer never came (timeout, broken connection): only the bank can say later. */
  | 'unanswered'
  /** The bank says it never received the order: submitting it again cannot debit twice. */
  | 'never-received'
  /** The bank took the debit and settles it on its settlement date. */
  | 'accepted'
  /** The bank moved the money. */
  | 'settled'
  /** The bank refused or failed the debit. */
  | 'failed'
  /** The merchant deleted the charge's payment before the debit was submitted. */
  | 'cancelled';

/** The states in which the bank may hold the debit: only its answer moves it on. */
const AT_THE_BANK: readonly DebitState[] = ['submitting', 'submitted', 'uncertain'];

export const DEBIT_TRANSITIONS: Transitions<DebitEvent, DebitState> = {
  claimed: { from: ['due'], to: 'submitting' },
  unanswered: { from: AT_THE_BANK, to: 'uncertain' },
  'never-received': { from: AT_THE_BANK, to: 'due' },
  accepted: { from: AT_THE_BANK, to: 'submitted' },
  settled: { from: AT_THE_BANK, to: 'settled' },
  failed: { from: AT_THE_BANK, to: 'failed' },
  cancelled: { from: ['due'], to: 'cancelled' },
};

export type DebitChange =
  | { event: 'claimed' | 'unanswered' | 'never-received' | 'settled' | 'cancelled' }
  | { event: 'accepted'; settlesAt: Date }
  | { event: 'failed'; message: string };

/** What a move writes: the new state and the dates and failure that go with it. */
export type DebitMove = Pick<Debit, 'state'> & Partial<Pick<Debit, 'failure' | 'nextCheckAt' | 'submittedAt' | 'settledAt'>> & { at: Date };

/** The move `change` makes of a debit in `from`; throws IllegalTransition for a move not in the table. */
export function debitMove(debit: Pick<Debit, 'submittedAt'>, from: DebitState, change: DebitChange, now: Date): DebitMove {
  const state = nextState('debit', DEBIT_TRANSITIONS, from, change.event);
  const submittedAt = debit.submittedAt ?? now;
  switch (change.event) {
    case 'unanswered':
      return { state, at: now, nextCheckAt: new Date(now.getTime() + DEBIT_QUESTION_RETRY_MS) };
    case 'never-received':
      return { state, at: now, nextCheckAt: now };
    case 'accepted':
      return { state, at: now, submittedAt, nextCheckAt: change.settlesAt };
    case 'settled':
      return { state, at: now, submittedAt, settledAt: now };
    case 'failed':
      return { state, at: now, failure: change.message };
    case 'claimed':
    case 'cancelled':
      return { state, at: now };
  }
}
