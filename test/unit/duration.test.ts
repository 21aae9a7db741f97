import { describe, expect, it } from 'vitest';
import { formatOffset, parseDuration } from '../../src/domain/duration.js';

describe('durations', () => {
  it.each([
    ['90s', 90_000],
    ['5m', 300_000],
    ['3h', 10_800_000],
    ['2d', 172_800_000],
    ['1d12h', 129_600_000],
    [' 2H ', 7_200_000],
  ])('%s', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['', '3', 'h', '3 h', '-1h', '1.5h', '3w', '0s', '3651d', '99999999999999999999d'])('refuses %j', (text) => {
    expect(parseDuration(text).ok).toBe(false);
  });
});

describe('offsets from real time', () => {
  it.each([
    [0, '0'],
    [999, '0'],
    [90_000, '+1m 30s'],
    [(2 * 24 + 3) * 3_600_000, '+2d 3h'],
    [86_400_000 + 5_000, '+1d 5s'],
    [-3_600_000, '-1h'],
  ])('%d ms reads %s', (ms, text) => {
    expect(formatOffset(ms)).toBe(text);
  });

  it('reads back as the duration it was typed as', () => {
    const ms = (parseDuration('3d4h5m6s') as { ms: number }).ms;
    expect(formatOffset(ms)).toBe('+3d 4h 5m 6s');
  });
});
