// The throttle's arithmetic: free failures, then doubling delays up to the cap; a subject with no
// delay pending holds back no attempt, even one that read the clock before the last failure was
// recorded (parallel attempts on a database whose lock they waited for).
import { describe, expect, it } from 'vitest';
import { afterFailure, afterSuccess, delayAfter, SIGN_IN_THROTTLES, waitBeforeAttempt } from '../../src/domain/sign-in-throttle.js';

describe('the sign-in throttle', () => {
  it('lets the free failures through, then doubles the delay up to its cap', () => {
    const { free, firstDelayMs, maxDelayMs } = SIGN_IN_THROTTLES.pair;
    expect(delayAfter('pair', free - 1)).toBe(0);
    expect(delayAfter('pair', free)).toBe(firstDelayMs);
    expect(delayAfter('pair', free + 1)).toBe(2 * firstDelayMs);
    expect(delayAfter('pair', free + 40)).toBe(maxDelayMs);
  });

  it('holds back no attempt while no delay is pending, whatever instant it read', () => {
    const state = afterFailure('second-factor', undefined, 10_000);
    expect(waitBeforeAttempt([state], 9_000)).toBe(0);
    expect(waitBeforeAttempt([afterSuccess(afterFailure('pair', state, 10_500))], 9_000)).toBe(0);
  });

  it('holds back an attempt until a pending delay ends', () => {
    let state = afterFailure('pair', undefined, 0);
    for (let i = 1; i < SIGN_IN_THROTTLES.pair.free; i++) state = afterFailure('pair', state, i);
    expect(waitBeforeAttempt([state], SIGN_IN_THROTTLES.pair.free)).toBe(SIGN_IN_THROTTLES.pair.firstDelayMs - 1);
  });
});
