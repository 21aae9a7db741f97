// THE transition table of an operation run with a descriptor, what each move adds to the event log
// the SDKs show, and the message a finished operation sends. The transfer is claimed (authenticated
// → running) before the bank hears of it, so a double submit reaches the bank once.
import type { BankPayer } from './bank-payer.js';
import type { MessageDraft } from './message-kinds.js';
import { type Operation, type OperationEvent, operationEvent, operationResult, operationResultMessage, type OperationState } from './operation.js';
import { nextState, type Transitions } from './state-machine.js';

export type OperationMoveEvent =
  /** The payer signed in at the origin bank. */
  | 'payer-authenticated'
  /** A request claims the transfer to ask the bank now. */
  | 'transfer-submitted'
  /** The bank transferred. */
  | 'transfer-executed'
  /** The bank surely did not transfer. */
  | 'transfer-failed'
  /** The bank did not say whether it transferred. */
  | 'transfer-uncertain';

export const OPERATION_TRANSITIONS: Transitions<OperationMoveEvent, OperationState> = {
  'payer-authenticated': { from: ['issued'], to: 'authenticated' },
  'transfer-submitted': { from: ['authenticated'], to: 'running' },
  'transfer-executed': { from: ['running'], to: 'ok' },
  'transfer-failed': { from: ['running'], to: 'error' },
  'transfer-uncertain': { from: ['running'], to: 'warning' },
};

/** The line each move adds to the operation's event log, as the SDKs name it. */
const LOGGED: Readonly<Record<OperationMoveEvent, Pick<OperationEvent, 'name' | 'type'>>> = {
  'payer-authenticated': { name: 'PAYER_AUTHENTICATED', type: 'info' },
  'transfer-submitted': { name: 'TRANSFER_SUBMITTED', type: 'info' },
  'transfer-executed': { name: 'TRANSFER_EXECUTED', type: 'info' },
  'transfer-failed': { name: 'TRANSFER_FAILED', type: 'error' },
  'transfer-uncertain': { name: 'TRANSFER_UNCERTAIN', type: 'warning' },
};

/** The bank's answer ends the run: the merchant's server hears the result at its notify_url. */
const FINISHING: readonly OperationMoveEvent[] = ['transfer-executed', 'transfer-failed', 'transfer-uncertain'];

export type OperationChange =
  | { event: 'payer-authenticated'; bankId: string; payer: BankPayer }
  | { event: 'transfer-submitted' | 'transfer-executed' | 'transfer-uncertain' }
  | { event: 'transfer-failed'; message: string };

/** What a move writes: the new state, the event log with its line, and the bank or failure that go with it. */
export type OperationMove = Pick<Operation, 'state' | 'events'> &
  Partial<Pick<Operation, 'bankId' | 'payerIdentifier' | 'payerAccount' | 'payerName' | 'failure'>> & { at: Date };

/** The move `change` makes of `operation` from `from`; throws IllegalTransition for a move not in the table. */
export function operationMove(operation: Pick<Operation, 'events'>, from: OperationState, change: OperationChange, now: Date): OperationMove {
  const state = nextState('operation', OPERATION_TRANSITIONS, from, change.event);
  const { name, type } = LOGGED[change.event];
  const move: OperationMove = { state, at: now, events: [...operation.events, operationEvent(name, now, type)] };
  if (change.event === 'payer-authenticated') {
    return {
      ...move,
      bankId: change.bankId,
      payerIdentifier: change.payer.personalIdentifier,
      payerAccount: change.payer.accountNumber,
      payerName: change.payer.holderName,
    };
  }
  if (change.event === 'transfer-failed') return { ...move, failure: change.message };
  return move;
}

/** The message a move sends: a finished operation's result, to the account's notify_url when it has one. */
export function operationMoveMessage(moved: Operation, event: OperationMoveEvent, notifyUrl: string | null, now: Date): MessageDraft | undefined {
  if (!FINISHING.includes(event) || !notifyUrl) return undefined;
  return operationResultMessage(operationResult(moved, now), moved.receiverId, notifyUrl);
}
