import { describe, expect, it } from 'vitest';
import { pooledRandom } from '../../src/runtime/random-pool.js';

describe('pooled randomness', () => {
  it('hands out fresh, independent bytes across refills, and large draws directly', () => {
    const random = pooledRandom();
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const bytes = random(32);
      expect(bytes).toHaveLength(32);
      seen.add(Buffer.from(bytes).toString('hex'));
    }
    expect(seen.size).toBe(1000);
    const first = random(16);
    const copy = Buffer.from(first);
    random(4096);
    expect(Buffer.from(first).equals(copy)).toBe(true);
    expect(random(10_000)).toHaveLength(10_000);
  });
});
