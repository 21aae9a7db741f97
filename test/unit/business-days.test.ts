import { describe, expect, it } from 'vitest';
import { isBusinessDay, nextBusinessDay } from '../../src/domain/business-days.js';

describe('business days in Santiago', () => {
  it('delivers on the next weekday at 10:00 local time', () => {
    // Tuesday 2026-11-17 15:00 UTC (12:00 in Santiago, UTC-3 in summer) → Wednesday 10:00 local = 13:00 UTC.
    expect(nextBusinessDay(new Date('2026-11-17T15:00:00Z')).toISOString()).toBe('2026-11-18T13:00:00.000Z');
  });
  it('skips weekends', () => {
    // Friday 2026-11-20 → Monday 2026-11-23.
    expect(nextBusinessDay(new Date('2026-11-20T15:00:00Z')).toISOString()).toBe('2026-11-23T13:00:00.000Z');
  });
  it('skips fixed holidays and Good Friday', () => {
    // Thursday 2026-12-24 → Friday 25 is Christmas → Monday 28.
    expect(nextBusinessDay(new Date('2026-12-24T15:00:00Z')).toISOString()).toBe('2026-12-28T13:00:00.000Z');
    expect(isBusinessDay({ year: 2026, month: 4, day: 3 })).toBe(false); // Good Friday 2026
    expect(isBusinessDay({ year: 2026, month: 9, day: 18 })).toBe(false);
  });
  it('counts days in Santiago, not UTC', () => {
    // 2026-06-05 02:00 UTC is still Thursday 4 June 22:00 in Santiago (UTC-4 in winter) → Friday 5 June 10:00 = 14:00 UTC.
    expect(nextBusinessDay(new Date('2026-06-05T02:00:00Z')).toISOString()).toBe('2026-06-05T14:00:00.000Z');
  });
});
