import { describe, expect, it } from 'vitest';
import { formatRut, parseRut, rutCheckDigit } from '../../src/domain/rut.js';

describe('RUT', () => {
  it('accepts valid RUTs in every common spelling', () => {
    for (const text of ['11111111-1', '11.111.111-1', '111111111', '44.444.444-4', '76.086.428-5', '10.000.013-k', '10000004-0']) {
      expect(parseRut(text), text).toBeDefined();
    }
  });
  it('refuses a wrong check digit and malformed text', () => {
    for (const text of ['11111111-2', '12345678-0', 'abc', '', '1-9', '11111111-']) expect(parseRut(text), text).toBeUndefined();
  });
  it('computes K and 0 check digits', () => {
    expect(rutCheckDigit(10000013)).toBe('K');
    expect(rutCheckDigit(10000004)).toBe('0');
    expect(formatRut(parseRut('111111111')!)).toBe('11.111.111-1');
  });
});
