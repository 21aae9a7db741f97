import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newNotificationToken, newPaymentId, newReceiverId, newReceiverSecret, newUuid, PAYMENT_ID_PATTERN } from '../../src/domain/ids.js';

const random = (n: number) => randomBytes(n);

describe('identifiers', () => {
  it('have the provider formats', () => {
    for (let i = 0; i < 200; i++) {
      expect(newPaymentId(random)).toMatch(PAYMENT_ID_PATTERN);
      expect(newNotificationToken(random)).toMatch(/^[0-9a-f]{64}$/);
      expect(newReceiverSecret(random)).toMatch(/^[0-9a-f]{40}$/);
      expect(newUuid(random)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const receiver = newReceiverId(random);
      expect(receiver).toBeGreaterThanOrEqual(100_000);
      expect(receiver).toBeLessThanOrEqual(999_999);
    }
  });
  it('take every character of the alphabet without bias from bytes that would skew it', () => {
    // A source that only yields 255 (above the unbiased limit) and then 0 must skip the 255s.
    let calls = 0;
    const skewed = (n: number) => new Uint8Array(n).fill(calls++ === 0 ? 255 : 0);
    expect(newPaymentId(skewed)).toBe('aaaaaaaaaaaa');
  });
});
