import { describe, expect, it } from 'vitest';
import { likelyTypo, unreadMoneyRequest } from '../../src/domain/unread-members.js';

const PAYMENT = ['amount', 'currency', 'subject', 'notify_url', 'return_url', 'transaction_id', 'body', 'bank_id', 'custom'];

describe('likelyTypo', () => {
  it.each([
    ['amout', 'amount'],
    ['amuont', 'amount'],
    ['Amount', 'amount'],
    ['subjet', 'subject'],
    ['notifyurl', 'notify_url'],
    ['notifyUrl', 'notify_url'],
    ['notify-url', 'notify_url'],
    ['notfy_url', 'notify_url'],
    ['transacion_id', 'transaction_id'],
    ['bod', 'body'],
    ['bankid', 'bank_id'],
  ])('%s is likely %s', (name, meant) => {
    expect(likelyTypo(name, PAYMENT)).toBe(meant);
  });

  it.each(['receiver_id', 'payment_id', 'colour', 'hash', 'x', 'a'.repeat(1_000_000)])('%s is no typo of a payment member', (name) => {
    expect(likelyTypo(name, PAYMENT)).toBeUndefined();
  });
});

describe('unreadMoneyRequest', () => {
  it('refuses an unknown member beside a missing money member, naming both', () => {
    expect(unreadMoneyRequest(['amout'], ['amount'], ['amount'])).toEqual([
      { field: 'amout', message: 'is not a known field (did you mean amount?)' },
      { field: 'amount', message: expect.stringContaining('is required') },
    ]);
  });

  it('reads the request as it stands when nothing is unknown, or nothing is missing', () => {
    expect(unreadMoneyRequest([], ['amount'], ['amount'])).toEqual([]);
    expect(unreadMoneyRequest(['payment_id'], [], ['amount'])).toEqual([]);
  });
});
