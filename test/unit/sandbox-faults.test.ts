// The faults on demand as a value and their seeded choices (domain/sandbox-faults.ts).
import { describe, expect, it } from 'vitest';
import { drawsFor, faultDraw, faultsFromSetting, planNotifications, settingOf, storedFaults } from '../../src/domain/sandbox-faults.js';

describe('the setting', () => {
  it('fills in its defaults, and asks for nothing when every part is off', () => {
    expect(faultsFromSetting({ api: { status: 503, count: 2 } })).toEqual({
      seed: 0,
      api: { status: 503, count: 2, retryAfterSeconds: 1 },
      dropConnection: null,
      bank: null,
      notifications: null,
    });
    expect(faultsFromSetting({})).toBeNull();
    expect(faultsFromSetting({ seed: 5, notifications: { duplicate: 0, out_of_order: false } })).toBeNull();
  });

  it('is stored as the setting with its defaults written out, and read back the same', () => {
    const faults = faultsFromSetting({ seed: 9, drop_connection: { count: 1 }, notifications: { out_of_order: true } })!;
    expect(settingOf(faults)).toEqual({ seed: 9, drop_connection: { count: 1 }, notifications: { duplicate: 0, out_of_order: true } });
    expect(storedFaults(JSON.stringify(settingOf(faults)))).toEqual(faults);
    expect(storedFaults(null)).toBeNull();
  });
});

describe('the draws', () => {
  it('are in [0, 1), the same for the same seed and number, and spread', () => {
    const draws = Array.from({ length: 10_000 }, (_, n) => faultDraw(42, n));
    expect(draws.every((d) => d >= 0 && d < 1)).toBe(true);
    expect(Array.from({ length: 10_000 }, (_, n) => faultDraw(42, n))).toEqual(draws);
    expect(faultDraw(43, 0)).not.toBe(faultDraw(42, 0));
    const mean = draws.reduce((sum, d) => sum + d, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
  });
});

describe('a plan of notifications', () => {
  it('never keeps their own order when out of order, whatever the seed', () => {
    for (let seed = 0; seed < 500; seed++) {
      for (const count of [2, 3, 5]) {
        const { order } = planNotifications({ duplicate: 0, outOfOrder: true }, seed, 0, count);
        expect([...order].sort()).toEqual(Array.from({ length: count }, (_, i) => i));
        expect(order).not.toEqual(Array.from({ length: count }, (_, i) => i));
      }
    }
  });

  it('sends every one twice at 1, none at 0, and some at a probability in between, drawing as many as drawsFor says', () => {
    expect(planNotifications({ duplicate: 1, outOfOrder: false }, 3, 0, 4)).toEqual({ order: [0, 1, 2, 3], twice: [true, true, true, true] });
    expect(drawsFor({ duplicate: 1, outOfOrder: false }, 4)).toBe(0);
    expect(drawsFor({ duplicate: 0.5, outOfOrder: true }, 4)).toBe(4 + 3);
    const twice = Array.from({ length: 200 }, (_, first) => planNotifications({ duplicate: 0.5, outOfOrder: false }, 7, first * 10, 10).twice).flat();
    const share = twice.filter(Boolean).length / twice.length;
    expect(share).toBeGreaterThan(0.4);
    expect(share).toBeLessThan(0.6);
  });

  it('is the same for the same seed and first draw', () => {
    const faults = { duplicate: 0.3, outOfOrder: true };
    expect(planNotifications(faults, 11, 4, 6)).toEqual(planNotifications(faults, 11, 4, 6));
  });
});
