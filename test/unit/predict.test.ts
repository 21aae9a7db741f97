import { describe, expect, it } from 'vitest';
import { findBank } from '../../src/domain/banks.js';
import { parseAmount } from '../../src/domain/money.js';
import type { FieldError } from '../../src/domain/errors.js';
import { predict } from '../../src/domain/predict.js';
import { parsePredictQuery } from '../../src/domain/predict-request.js';

const bank = findBank('dfFbF', false)!;
const clp = (text: string) => {
  const p = parseAmount(text, 0);
  if (!p.ok) throw new Error(text);
  return p.units;
};
const now = new Date('2026-11-22T12:00:00Z');

describe('predictions', () => {
  it('is ok for a known payer within limits', () => {
    const p = predict(bank, clp('300000'), 'CLP', { firstPaidAt: new Date('2026-01-01T00:00:00Z') }, now);
    expect(p.result).toBe('ok');
    expect(p.maxAmount).toBe(bank.maxAmount);
  });
  it('limits a new recipient and tells when the restriction would end', () => {
    const p = predict(bank, clp('300000'), 'CLP', { firstPaidAt: null }, now);
    expect(p.result).toBe('new_destinatary_amount_exceeded');
    expect(p.coolDownDate.getTime() - now.getTime()).toBe(bank.coolDownHours * 3_600_000);
    expect(predict(bank, clp('1000'), 'CLP', { firstPaidAt: null }, now).result).toBe('ok');
  });
  it('keeps a recently added recipient in cool-down', () => {
    const firstPaidAt = new Date(now.getTime() - 3_600_000);
    const p = predict(bank, clp('300000'), 'CLP', { firstPaidAt }, now);
    expect(p.result).toBe('new_destinatary_cool_down');
    expect(p.coolDownDate.getTime()).toBe(firstPaidAt.getTime() + bank.coolDownHours * 3_600_000);
  });
  it('refuses beyond the bank maximum and in a currency the bank does not move', () => {
    expect(predict(bank, clp('5000001'), 'CLP', { firstPaidAt: null }, now).result).toBe('max_amount_exceeded');
    expect(predict(bank, 10_000, 'USD', { firstPaidAt: null }, now).result).toBe('not_available_account');
  });
  it('answers a bank this account cannot pay from as not available, with no limits', () => {
    const firstPaidAt = new Date('2026-01-01T00:00:00Z');
    expect(predict(undefined, 10_000, 'CLP', { firstPaidAt }, now)).toEqual({
      result: 'not_available_account',
      maxAmount: 0,
      newDestinataryMaxAmount: 0,
      coolDownDate: firstPaidAt,
    });
  });
});

describe('the predict query', () => {
  const query = { payer_email: 'payer@example.com', bank_id: 'dfFbF', amount: '1000', currency: 'CLP' };
  const read = (amount: string, currency = 'CLP') => {
    const doubts: FieldError[] = [];
    return { amount: parsePredictQuery({ ...query, amount, currency }, false, doubts).amount, doubts: doubts.map((d) => d.message) };
  };

  it('reads an amount as a payment would, without a doubt', () => {
    expect(read('1000')).toEqual({ amount: clp('1000'), doubts: [] });
    expect(read('10.25', 'USD')).toEqual({ amount: 102_500, doubts: [] });
  });

  it('reads any other number as well as it can, doubting it', () => {
    expect(read('1.5')).toEqual({ amount: 15_000, doubts: ['must not have decimals in this currency'] });
    // Past the fourth decimal, rounded up: still more than a limit of whole units it exceeds.
    expect(read('5000000.00001')).toEqual({ amount: clp('5000000') + 1, doubts: ['must not have decimals in this currency'] });
    expect(read('0')).toEqual({ amount: 0, doubts: ['must be greater than zero'] });
    expect(read('-5')).toEqual({ amount: 0, doubts: ['must be greater than zero'] });
    expect(read('1'.repeat(20))).toEqual({ amount: Number.POSITIVE_INFINITY, doubts: [expect.stringContaining('out of range')] });
    expect(read('1.23456', 'XXX').amount).toBe(12_346);
  });

  it('refuses an amount that is no number', () => {
    for (const amount of ['abc', '1e3', '1,000', '']) expect(() => parsePredictQuery({ ...query, amount }, false), amount).toThrow();
  });
});
