import { describe, expect, it } from 'vitest';
import {
  amountToNumber,
  formatAmount,
  formatAmountFixed,
  MAX_AMOUNT_TEXT,
  numberToDecimalText,
  parseAmount,
  plainDecimalText,
  withoutTrailingZeros,
} from '../../src/domain/money.js';

describe('money', () => {
  it('parses decimals exactly into units of 1/10000', () => {
    expect(parseAmount('1000', 0)).toEqual({ ok: true, units: 10_000_000 });
    expect(parseAmount('100.0', 0)).toEqual({ ok: true, units: 1_000_000 });
    expect(parseAmount('0.1', 2)).toEqual({ ok: true, units: 1000 });
    expect(parseAmount('12.3456', 4)).toEqual({ ok: true, units: 123_456 });
    expect(parseAmount('007.50', 2)).toEqual({ ok: true, units: 75_000 });
  });
  it('refuses more decimals than the currency allows, separators and signs', () => {
    for (const [text, decimals] of [
      ['10.5', 0],
      ['1.234', 2],
      ['1.23456', 4],
      ['1,000', 0],
      ['1 000', 0],
      ['-5', 0],
      ['+5', 0],
      ['1e3', 0],
      ['', 0],
      ['.5', 2],
      ['5.', 2],
    ] as const) {
      expect(parseAmount(text, decimals).ok, text).toBe(false);
    }
  });
  it('refuses amounts beyond the exact integer range, saying so', () => {
    expect(parseAmount('99999999999.9999', 4).ok).toBe(true);
    const out = { ok: false, reason: 'is out of range: amounts must be below 100000000000' };
    expect(parseAmount('100000000000', 0)).toEqual(out);
    expect(parseAmount(`1${'0'.repeat(400)}`, 0)).toEqual(out);
  });
  it('says why an amount is refused', () => {
    expect(parseAmount('-5', 0)).toEqual({ ok: false, reason: 'must be greater than zero' });
    expect(parseAmount('10.5', 0)).toEqual({ ok: false, reason: 'must not have decimals in this currency' });
    expect(parseAmount('0.0000001', 4)).toEqual({ ok: false, reason: 'must have at most 4 decimals in this currency' });
  });
  it('adds 0.1 and 0.2 without floating-point drift', () => {
    const a = parseAmount('0.1', 2);
    const b = parseAmount('0.2', 2);
    if (!a.ok || !b.ok) throw new Error('parse');
    expect(formatAmount(a.units + b.units)).toBe('0.3');
  });
  it('formats the shortest text, the 4-decimal text and the JSON number', () => {
    expect(formatAmount(10_000_000)).toBe('1000');
    expect(formatAmount(10_005_000)).toBe('1000.5');
    expect(formatAmount(1)).toBe('0.0001');
    expect(formatAmountFixed(10_000_000)).toBe('1000.0000');
    expect(amountToNumber(123_456)).toBe(12.3456);
  });
  it('reads JSON numbers as the client wrote them', () => {
    expect(numberToDecimalText(1000.5)).toBe('1000.5');
    expect(numberToDecimalText(0.1)).toBe('0.1');
    expect(numberToDecimalText(Number.NaN)).toBeUndefined();
  });
  it('writes out numbers JavaScript prints with an exponent, exactly', () => {
    expect(numberToDecimalText(1e-7)).toBe('0.0000001');
    expect(numberToDecimalText(1.5e-7)).toBe('0.00000015');
    expect(numberToDecimalText(-2e-7)).toBe('-0.0000002');
    expect(numberToDecimalText(1e21)).toBe('1000000000000000000000');
    expect(numberToDecimalText(1.25e21)).toBe('1250000000000000000000');
    expect(plainDecimalText('1.0E+7')).toBe('10000000');
    expect(plainDecimalText('1.23456785E7')).toBe('12345678.5');
    expect(plainDecimalText('12.5')).toBe('12.5');
    // An exponent no double has stays as it is (and is refused), never millions of zeros.
    expect(plainDecimalText('1e99999')).toBe('1e99999');
  });
  it('strips trailing zeros in one pass, and refuses text longer than any amount before reading it', () => {
    expect(withoutTrailingZeros('1200')).toBe('12');
    expect(withoutTrailingZeros('000')).toBe('');
    expect(withoutTrailingZeros(`1${'0'.repeat(1_000_000)}1`)).toHaveLength(1_000_002);
    expect(parseAmount(`1000.${'0'.repeat(MAX_AMOUNT_TEXT - 5)}`, 0)).toEqual({ ok: true, units: 1000 * 10_000 });
    expect(parseAmount(`1${'0'.repeat(1_000_000)}1`, 0)).toEqual({ ok: false, reason: `must be at most ${MAX_AMOUNT_TEXT} characters long` });
  });
});
