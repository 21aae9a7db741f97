import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  canApply,
  detailsIn,
  isDeletable,
  PAYMENT_STATES,
  PAYMENT_TRANSITIONS,
  type PaymentEvent,
  type PaymentState,
  statusesWith,
} from '../../src/domain/payment-status.js';
import { IllegalTransition } from '../../src/domain/state-machine.js';

const pending: PaymentState = { status: 'pending', statusDetail: 'pending' };
const paid: PaymentState = { status: 'done', statusDetail: 'normal' };

describe('payment transition table', () => {
  it('pays a pending payment through verification', () => {
    const verifying = applyEvent(pending, 'transfer-authorized');
    expect(verifying).toEqual({ status: 'verifying', statusDetail: 'pending' });
    expect(applyEvent(verifying, 'reconciled')).toEqual(paid);
    expect(applyEvent(verifying, 'transfer-failed')).toEqual(pending);
  });
  it('reverses a paid payment refunded in full, and nothing else', () => {
    expect(applyEvent(paid, 'refunded-in-full')).toEqual({ status: 'done', statusDetail: 'reversed' });
    expect(canApply({ status: 'done', statusDetail: 'marked-paid-by-receiver' }, 'refunded-in-full')).toBe(false);
  });
  it('makes declines terminal', () => {
    for (const event of ['rejected-by-payer', 'marked-as-abuse'] as const) {
      const declined = applyEvent(pending, event);
      expect(declined.status).toBe('pending');
      for (const next of Object.keys(PAYMENT_TRANSITIONS) as PaymentEvent[]) expect(canApply(declined, next), `${event} then ${next}`).toBe(false);
    }
  });
  it('refuses every transition not in the table', () => {
    expect(() => applyEvent(paid, 'reconciled')).toThrow(IllegalTransition);
    expect(() => applyEvent(paid, 'transfer-authorized')).toThrow(IllegalTransition);
    expect(() => applyEvent({ status: 'done', statusDetail: 'reversed' }, 'refunded-in-full')).toThrow(IllegalTransition);
  });
  it('allows deleting only pending payments', () => {
    expect(isDeletable(pending)).toBe(true);
    expect(isDeletable({ status: 'verifying', statusDetail: 'pending' })).toBe(false);
    expect(isDeletable(paid)).toBe(false);
  });
});

describe('the states a payment can be in', () => {
  it('are the first and those the table moves payments from and to, each once', () => {
    expect(PAYMENT_STATES.map((s) => `${s.status}/${s.statusDetail}`).sort()).toEqual([
      'done/marked-paid-by-receiver',
      'done/normal',
      'done/reversed',
      'pending/marked-as-abuse',
      'pending/pending',
      'pending/rejected-by-payer',
      'verifying/pending',
    ]);
  });

  it('tell the details a status comes with and the statuses a detail comes with', () => {
    expect(detailsIn('done')).toEqual(['normal', 'marked-paid-by-receiver', 'reversed']);
    expect(detailsIn('verifying')).toEqual(['pending']);
    expect(statusesWith('pending')).toEqual(['pending', 'verifying']);
    expect(statusesWith('reversed')).toEqual(['done']);
  });
});
