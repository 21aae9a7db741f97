// The transition tables of a debit, a payer's attempt, a mandate-signing session and an operation: each refuses every move it
// does not list, leaves its terminal states for good, and says what a move writes and sends.
import { describe, expect, it } from 'vitest';
import { ATTEMPT_TRANSITIONS, attemptMove } from '../../src/domain/attempt-status.js';
import { DEBIT_STATES } from '../../src/domain/debit.js';
import { DEBIT_TRANSITIONS, debitMove } from '../../src/domain/debit-status.js';
import { type Operation, OPERATION_STATES } from '../../src/domain/operation.js';
import { OPERATION_TRANSITIONS, operationMove, operationMoveMessage } from '../../src/domain/operation-status.js';
import { SIGNING_STATES } from '../../src/domain/mandate-signing.js';
import { ATTEMPT_STATES } from '../../src/domain/payment-attempt.js';
import { SIGNING_TRANSITIONS, signingMove } from '../../src/domain/signing-status.js';
import { canMove, IllegalTransition, nextState, type Transitions } from '../../src/domain/state-machine.js';

const NOW = new Date('2026-11-27T12:00:00Z');

/** Every (state, event) pair the table does not list is refused; the states it never leaves are exactly `terminal`. */
function refusesWhatItDoesNotList<E extends string, S extends string>(machine: string, table: Transitions<E, S>, states: readonly S[], terminal: readonly S[]) {
  const events = Object.keys(table) as E[];
  let refused = 0;
  for (const state of states) {
    for (const event of events) {
      if (canMove(table, state, event)) {
        expect(nextState(machine, table, state, event)).toBe(table[event].to);
        continue;
      }
      expect(() => nextState(machine, table, state, event)).toThrow(IllegalTransition);
      refused++;
    }
  }
  expect(refused).toBeGreaterThan(0);
  expect(states.filter((s) => !events.some((e) => canMove(table, s, e)))).toEqual(terminal);
}

describe("a charge's debit", () => {
  it('refuses every move its table does not list, and never leaves settled, failed or cancelled', () => {
    refusesWhatItDoesNotList('debit', DEBIT_TRANSITIONS, DEBIT_STATES, ['settled', 'failed', 'cancelled']);
  });

  it('is claimed only while due, and moves on from the bank only on its answer', () => {
    expect(() => debitMove({ submittedAt: null }, 'submitted', { event: 'claimed' }, NOW)).toThrow(IllegalTransition);
    expect(() => debitMove({ submittedAt: null }, 'due', { event: 'accepted', settlesAt: NOW }, NOW)).toThrow(IllegalTransition);
    expect(() => debitMove({ submittedAt: null }, 'submitting', { event: 'cancelled' }, NOW)).toThrow('a debit in submitting cannot take event cancelled');
  });

  it('writes the dates each answer gives it', () => {
    const settlesAt = new Date('2026-11-30T12:00:00Z');
    expect(debitMove({ submittedAt: null }, 'submitting', { event: 'accepted', settlesAt }, NOW)).toEqual({
      state: 'submitted',
      at: NOW,
      submittedAt: NOW,
      nextCheckAt: settlesAt,
    });
    const earlier = new Date('2026-11-26T12:00:00Z');
    expect(debitMove({ submittedAt: earlier }, 'submitted', { event: 'settled' }, NOW)).toEqual({
      state: 'settled',
      at: NOW,
      submittedAt: earlier,
      settledAt: NOW,
    });
    expect(debitMove({ submittedAt: null }, 'submitting', { event: 'unanswered' }, NOW)).toEqual({
      state: 'uncertain',
      at: NOW,
      nextCheckAt: new Date(NOW.getTime() + 60_000),
    });
    expect(debitMove({ submittedAt: null }, 'uncertain', { event: 'never-received' }, NOW)).toEqual({ state: 'due', at: NOW, nextCheckAt: NOW });
    expect(debitMove({ submittedAt: null }, 'submitted', { event: 'failed', message: 'Fondos insuficientes' }, NOW)).toEqual({
      state: 'failed',
      at: NOW,
      failure: 'Fondos insuficientes',
    });
  });
});

describe("a payer's attempt", () => {
  it('refuses every move its table does not list, and never leaves executed or failed', () => {
    refusesWhatItDoesNotList('payer attempt', ATTEMPT_TRANSITIONS, ATTEMPT_STATES, ['executed', 'failed']);
  });

  it('is claimed once, after sign-in, and an uncertain transfer moves only on the bank’s later answer', () => {
    expect(() => attemptMove('started', { event: 'claimed' }, NOW)).toThrow(IllegalTransition);
    expect(() => attemptMove('uncertain', { event: 'unanswered' }, NOW)).toThrow(IllegalTransition);
    expect(attemptMove('uncertain', { event: 'executed' }, NOW)).toEqual({ state: 'executed', at: NOW });
    const payer = { personalIdentifier: '11.111.111-1', accountNumber: '0001', holderName: 'Ana' };
    expect(attemptMove('started', { event: 'signed-in', payer }, NOW)).toEqual({
      state: 'authenticated',
      at: NOW,
      personalIdentifier: '11.111.111-1',
      accountNumber: '0001',
      payerName: 'Ana',
    });
  });
});

describe("a payer's mandate-signing session", () => {
  it('refuses every move its table does not list, and never leaves signed or rejected', () => {
    refusesWhatItDoesNotList('signing session', SIGNING_TRANSITIONS, SIGNING_STATES, ['signed', 'rejected']);
  });

  it('releases a signature the bank did not take, for the payer to answer again', () => {
    expect(signingMove('signing', { event: 'released' }, NOW)).toEqual({ state: 'authenticated', at: NOW });
    expect(() => signingMove('authenticated', { event: 'released' }, NOW)).toThrow(IllegalTransition);
    expect(signingMove('signing', { event: 'rejected', message: 'Mandato rechazado' }, NOW)).toEqual({
      state: 'rejected',
      at: NOW,
      failure: 'Mandato rechazado',
    });
  });
});

describe('an operation', () => {
  const operation: Operation = {
    operationId: 'op-1',
    receiverId: 7,
    keyId: 'k1',
    bank: '',
    description: 'd',
    state: 'running',
    bankId: 'Bawdf',
    payerIdentifier: '11.111.111-1',
    payerAccount: '0001',
    payerName: 'Ana',
    failure: null,
    events: [{ name: 'OPERATION_ISSUED', type: 'info', timestamp: '2026-11-27T11:00:00.000Z' }],
    expiresAt: new Date('2026-11-28T00:00:00Z'),
    createdAt: new Date('2026-11-27T11:00:00Z'),
  };

  it('refuses every move its table does not list, and never leaves ok, error or warning', () => {
    refusesWhatItDoesNotList('operation', OPERATION_TRANSITIONS, OPERATION_STATES, ['ok', 'error', 'warning']);
    expect(() => operationMove(operation, 'issued', { event: 'transfer-submitted' }, NOW)).toThrow(IllegalTransition);
  });

  it('adds the line the SDKs show to the event log, and sends the result only when the run ends', () => {
    const failed = operationMove(operation, 'running', { event: 'transfer-failed', message: 'Sin fondos' }, NOW);
    expect(failed).toMatchObject({ state: 'error', failure: 'Sin fondos' });
    expect(failed.events.at(-1)).toEqual({ name: 'TRANSFER_FAILED', type: 'error', timestamp: NOW.toISOString() });
    const moved = { ...operation, ...failed };
    expect(JSON.parse(operationMoveMessage(moved, 'transfer-failed', 'https://shop.example/hook', NOW)!.body)).toMatchObject({
      operationId: 'op-1',
      result: 'ERROR',
    });
    expect(operationMoveMessage(moved, 'transfer-failed', null, NOW)).toBeUndefined();
    expect(operationMoveMessage({ ...operation, state: 'running' }, 'transfer-submitted', 'https://shop.example/hook', NOW)).toBeUndefined();
  });
});
