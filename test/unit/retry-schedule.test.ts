import { describe, expect, it } from 'vitest';
import { DELIVERY_WINDOW_MS, JITTER, MAX_ATTEMPTS, RETRY_DELAYS_MS, nextAttemptAt, parseRetryAfter } from '../../src/domain/retry-schedule.js';

const H = 3_600_000;
const start = Date.UTC(2025, 0, 1);

describe('retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 16 h: nine attempts within two days', () => {
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 2 * H, 5 * H, 10 * H, 14 * H, 16 * H]);
    expect(MAX_ATTEMPTS).toBe(9);
    let now = start;
    for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts++) {
      const next = nextAttemptAt({ attemptsInRound: attempts, roundStartedAt: start, dueAt: now, now, random: 0 });
      expect(next).toBe(now + RETRY_DELAYS_MS[attempts - 1]!);
      now = next!;
    }
    expect(now - start).toBeLessThan(DELIVERY_WINDOW_MS);
    expect(nextAttemptAt({ attemptsInRound: MAX_ATTEMPTS, roundStartedAt: start, dueAt: now, now, random: 0 })).toBeNull();
  });

  it('jitters each wait down by at most 10%, so the schedule always fits the window', () => {
    const wait = (random: number) => nextAttemptAt({ attemptsInRound: 4, roundStartedAt: start, dueAt: start, now: start, random })! - start;
    expect(wait(0)).toBe(2 * H);
    expect(wait(0.5)).toBe(Math.round(2 * H * (1 - JITTER / 2)));
    expect(wait(0.999999)).toBeGreaterThan(2 * H * (1 - JITTER) - 1);
    expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBeLessThan(DELIVERY_WINDOW_MS);
  });

  it('stops after an attempt due at the end of the two days, whatever the count', () => {
    expect(
      nextAttemptAt({ attemptsInRound: 2, roundStartedAt: start, dueAt: start + DELIVERY_WINDOW_MS, now: start + DELIVERY_WINDOW_MS, random: 0 }),
    ).toBeNull();
    expect(nextAttemptAt({ attemptsInRound: 8, roundStartedAt: start, dueAt: start + 40 * H, now: start + 40 * H, random: 0 })).toBe(
      start + DELIVERY_WINDOW_MS,
    );
  });

  it('counts from due time to due time: attempts missed while the clock jumped are all made, then the round ends', () => {
    // The clock moved two days on after the first attempt: every later one is already due when the one before fails.
    const now = start + 2 * 24 * H;
    let due = start;
    for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts++) {
      const next = nextAttemptAt({ attemptsInRound: attempts, roundStartedAt: start, dueAt: due, now, random: 0 })!;
      expect(next).toBe(due + RETRY_DELAYS_MS[attempts - 1]!);
      expect(next).toBeLessThanOrEqual(now);
      due = next;
    }
    expect(nextAttemptAt({ attemptsInRound: MAX_ATTEMPTS, roundStartedAt: start, dueAt: due, now, random: 0 })).toBeNull();
  });

  it('honours Retry-After within the schedule: longer waits only, at most 16 h, never past the window', () => {
    const next = (retryAfterMs: number, attemptsInRound = 1, now = start) =>
      nextAttemptAt({ attemptsInRound, roundStartedAt: start, dueAt: now, now, random: 0, retryAfterMs });
    expect(next(60_000)).toBe(start + 60_000);
    expect(next(1_000)).toBe(start + 5_000);
    expect(next(100 * H)).toBe(start + 16 * H);
    expect(next(16 * H, 3, start + 40 * H)).toBe(start + DELIVERY_WINDOW_MS);
    // Counted from when the receiver said it, not from when the late attempt was due.
    expect(nextAttemptAt({ attemptsInRound: 1, roundStartedAt: start, dueAt: start, now: start + 600_000, random: 0, retryAfterMs: 60_000 })).toBe(
      start + 660_000,
    );
  });
});

describe('Retry-After', () => {
  const wallNow = Date.UTC(2025, 0, 1, 12);
  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', wallNow)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', wallNow)).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:10:00 GMT', wallNow)).toBe(600_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', wallNow)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, wallNow)).toBeUndefined();
    expect(parseRetryAfter('soon', wallNow)).toBeUndefined();
    expect(parseRetryAfter('-5', wallNow)).toBeUndefined();
    expect(parseRetryAfter('1.5', wallNow)).toBeUndefined();
  });
});
