import { describe, expect, it } from 'vitest';
import { findBank } from '../../src/domain/banks.js';
import { parseAmount } from '../../src/domain/money.js';
import { predict } from '../../src/domain/predict.js';

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
});
