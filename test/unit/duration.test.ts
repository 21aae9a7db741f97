import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/domain/duration.js';

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
