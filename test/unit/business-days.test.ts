import { describe, expect, it } from 'vitest';
import { chileanHolidays, isBusinessDay, nextBusinessDay, startOfDay } from '../../src/domain/business-days.js';

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

describe('the first instant of a day in Santiago', () => {
  it.each([
    ['summer, UTC-3', { year: 2024, month: 1, day: 15 }, '2024-01-15T03:00:00.000Z'],
    ['winter, UTC-4', { year: 2024, month: 6, day: 15 }, '2024-06-15T04:00:00.000Z'],
    // Clocks go from Saturday 24:00 to Sunday 01:00: that Sunday starts at 01:00, UTC-3.
    ['the day that skips midnight', { year: 2024, month: 9, day: 8 }, '2024-09-08T04:00:00.000Z'],
    // Clocks go from Sunday 00:00 back to Saturday 23:00: the Sunday starts at the second midnight, UTC-4.
    ['the day after an hour repeats', { year: 2024, month: 4, day: 7 }, '2024-04-07T04:00:00.000Z'],
    ['the day whose last hour repeats', { year: 2024, month: 4, day: 6 }, '2024-04-06T03:00:00.000Z'],
  ])('%s', (_, date, instant) => {
    expect(startOfDay(date).toISOString()).toBe(instant);
  });
});

describe('Chilean bank holidays', () => {
  // The official calendars, the bank holiday of December 31 included.
  it.each([
    [
      2025,
      ['01-01', '04-18', '04-19', '05-01', '05-21', '06-20', '06-29', '07-16', '08-15', '09-18', '09-19', '10-12', '10-31', '11-01', '12-08', '12-25', '12-31'],
    ],
    [
      2026,
      ['01-01', '04-03', '04-04', '05-01', '05-21', '06-21', '06-29', '07-16', '08-15', '09-18', '09-19', '10-12', '10-31', '11-01', '12-08', '12-25', '12-31'],
    ],
    [
      2027,
      [
        '01-01',
        '03-26',
        '03-27',
        '05-01',
        '05-21',
        '06-21',
        '06-28',
        '07-16',
        '08-15',
        '09-17',
        '09-18',
        '09-19',
        '10-11',
        '10-31',
        '11-01',
        '12-08',
        '12-25',
        '12-31',
      ],
    ],
  ])('lists every holiday of %i', (year, days) => {
    expect(chileanHolidays(year)).toEqual(days.map((d) => `${year}-${d}`));
  });

  it.each([
    // Indigenous Peoples' day, on the solstice: Thursday 2025-06-19 → Friday 20 → Monday 23.
    ['2025-06-19T16:00:00Z', '2025-06-23T14:00:00.000Z'],
    // A solstice on a Sunday stays there: Friday 2026-06-19 → Monday 22.
    ['2026-06-19T16:00:00Z', '2026-06-22T14:00:00.000Z'],
    // Friday 2027-06-18 → Monday 21 is the solstice → Tuesday 22.
    ['2027-06-18T16:00:00Z', '2027-06-22T14:00:00.000Z'],
    // Saint Peter and Saint Paul, Tuesday 2027-06-29, moves to Monday 28: Friday 25 → Tuesday 29.
    ['2027-06-25T16:00:00Z', '2027-06-29T14:00:00.000Z'],
    // Encuentro de Dos Mundos, Tuesday 2027-10-12, moves to Monday 11: Friday 8 → Tuesday 12.
    ['2027-10-08T15:00:00Z', '2027-10-12T13:00:00.000Z'],
    // Iglesias Evangélicas on Friday 2025-10-31: Thursday 30 → Monday 3 November.
    ['2025-10-30T15:00:00Z', '2025-11-03T13:00:00.000Z'],
    // Fiestas Patrias 2027 fall on the weekend, so Friday 17 is a holiday: Thursday 16 → Monday 20.
    ['2027-09-16T15:00:00Z', '2027-09-20T13:00:00.000Z'],
    // The bank holiday: Wednesday 2025-12-31 closed, then New Year → Friday 2026-01-02.
    ['2025-12-30T15:00:00Z', '2026-01-02T13:00:00.000Z'],
    // Thursday 2026-12-31 closed, Friday New Year, weekend → Monday 2027-01-04.
    ['2026-12-30T15:00:00Z', '2027-01-04T13:00:00.000Z'],
    // Friday 2027-12-31 closed → Monday 2028-01-03.
    ['2027-12-30T15:00:00Z', '2028-01-03T13:00:00.000Z'],
  ])('confirmed at %s, delivers at %s', (confirmedAt, delivery) => {
    expect(nextBusinessDay(new Date(confirmedAt)).toISOString()).toBe(delivery);
  });

  it.each([
    // Saint Peter and Saint Paul on a Friday moves to the next Monday; Friday is a business day again.
    ['2029-07-02', false],
    ['2029-06-29', true],
    // Iglesias Evangélicas on a Tuesday moves to the Friday before, on a Wednesday to the Friday after.
    ['2023-10-27', false],
    ['2023-10-31', true],
    ['2029-11-02', false],
    ['2029-10-31', true],
    // January 2 after a Sunday New Year; September 17 on a Monday; September 20 on a Friday.
    ['2023-01-02', false],
    ['2029-09-17', false],
    ['2024-09-20', false],
    // The solstice in 2028 is on June 20; June 21 is an ordinary Wednesday.
    ['2028-06-20', false],
    ['2028-06-21', true],
  ] as const)('%s is a business day: %s', (day, business) => {
    const [year, month, date] = day.split('-').map(Number) as [number, number, number];
    expect(isBusinessDay({ year, month, day: date })).toBe(business);
  });
});
