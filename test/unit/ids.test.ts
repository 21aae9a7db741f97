import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  newApiKey,
  newNotificationToken,
  newPaymentId,
  newReceiverId,
  newReceiverSecret,
  newUuid,
  PAYMENT_ID_PATTERN,
  UUID_PATTERN,
} from '../../src/domain/ids.js';

const random = (n: number) => randomBytes(n);

describe('identifiers', () => {
  it('have the provider formats', () => {
    for (let i = 0; i < 200; i++) {
      expect(newPaymentId(random)).toMatch(PAYMENT_ID_PATTERN);
      expect(newNotificationToken(random, Date.now())).toMatch(/^[0-9a-f]{64}$/);
      expect(newReceiverSecret(random)).toMatch(/^[0-9a-f]{40}$/);
      expect(newUuid(random)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const receiver = newReceiverId(random);
      expect(receiver).toBeGreaterThanOrEqual(100_000);
      expect(receiver).toBeLessThanOrEqual(999_999);
    }
  });
  it('give notification tokens that sort by creation time and differ in 208 random bits', () => {
    const at = Date.parse('2026-11-23T12:00:00.000Z');
    const tokens = [at, at + 1, at + 60_000, Date.parse('2099-01-01T00:00:00Z')].map((t) => newNotificationToken(random, t));
    expect([...tokens].sort()).toEqual(tokens);
    expect(tokens[0]!.slice(0, 12)).toBe(at.toString(16).padStart(12, '0'));
    const sameMillisecond = new Set(Array.from({ length: 1000 }, () => newNotificationToken(random, at)));
    expect(sameMillisecond.size).toBe(1000);
    expect(newNotificationToken(() => new Uint8Array(26).fill(0xab), at).slice(12)).toBe('ab'.repeat(26));
  });
  it("give API keys in a UUID's shape with all 128 bits from the random source", () => {
    for (let i = 0; i < 200; i++) expect(newApiKey(random)).toMatch(UUID_PATTERN);
    // No bit is fixed: all ones and all zeros come through as they are, version and variant nibbles included.
    expect(newApiKey((n) => new Uint8Array(n).fill(0xff))).toBe('ffffffff-ffff-ffff-ffff-ffffffffffff');
    expect(newApiKey((n) => new Uint8Array(n))).toBe('00000000-0000-0000-0000-000000000000');
    let asked = 0;
    newApiKey((n) => new Uint8Array((asked = n)));
    expect(asked).toBe(16);
  });
  it('take every character of the alphabet without bias from bytes that would skew it', () => {
    // A source that only yields 255 (above the unbiased limit) and then 0 must skip the 255s.
    let calls = 0;
    const skewed = (n: number) => new Uint8Array(n).fill(calls++ === 0 ? 255 : 0);
    expect(newPaymentId(skewed)).toBe('aaaaaaaaaaaa');
  });
});
