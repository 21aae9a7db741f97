// The mandate's transition table: what each event may leave from, what the wire shows, what is sent.
import { describe, expect, it } from 'vitest';
import {
  inChainOrder,
  applyMandateEvent,
  canApplyMandateEvent,
  chargeRefusal,
  MANDATE_STATES,
  MANDATE_TRANSITIONS,
  type MandateEvent,
  signingNotificationStatus,
  wireStatus,
} from '../../src/domain/mandate-status.js';
import { IllegalTransition } from '../../src/domain/state-machine.js';

const EVENTS = Object.keys(MANDATE_TRANSITIONS) as MandateEvent[];

describe('the mandate transition table', () => {
  it('takes the payer from created through signed to enabled', () => {
    expect(applyMandateEvent(applyMandateEvent('created', 'signed'), 'enabled-by-bank')).toBe('enabled');
  });

  it('refuses every event from a state it does not list, and leaves terminal states for good', () => {
    for (const state of MANDATE_STATES) {
      for (const event of EVENTS) {
        if (canApplyMandateEvent(state, event)) continue;
        expect(() => applyMandateEvent(state, event)).toThrow(IllegalTransition);
      }
    }
    for (const terminal of ['bank-rejected', 'revoked-by-payer'] as const) expect(EVENTS.some((e) => canApplyMandateEvent(terminal, e))).toBe(false);
  });

  it('shows three statuses on the wire and lets only ENABLED be charged', () => {
    expect(MANDATE_STATES.map(wireStatus)).toEqual(['DISABLED', 'SIGNED', 'ENABLED', 'DISABLED', 'DISABLED']);
    expect(MANDATE_STATES.filter((s) => chargeRefusal(s) === undefined)).toEqual(['enabled']);
    expect(chargeRefusal('signed')).toContain('SIGNED');
    expect(chargeRefusal('revoked-by-payer')).toContain('revoked');
  });

  it('notifies when signing finishes and when the payer revokes, in lower case', () => {
    expect(EVENTS.map((e) => [e, signingNotificationStatus(e)])).toEqual([
      ['signed', undefined],
      ['enabled-by-bank', 'enabled'],
      ['rejected-by-bank', 'disabled'],
      ['revoked-by-payer', 'disabled'],
    ]);
  });
});

describe('a mandate history in the order it was made', () => {
  const at = (ms: number) => new Date(ms);
  it('follows the chain of states where changes share a millisecond, and leaves other orders alone', () => {
    const signed = { from: 'created', to: 'signed', changedAt: at(1000) };
    const enabled = { from: 'signed', to: 'enabled', changedAt: at(1000) };
    const revoked = { from: 'enabled', to: 'revoked', changedAt: at(2000) };
    expect(inChainOrder([enabled, signed, revoked])).toEqual([signed, enabled, revoked]);
    expect(inChainOrder([signed, enabled, revoked])).toEqual([signed, enabled, revoked]);
    expect(inChainOrder([])).toEqual([]);
  });
});
