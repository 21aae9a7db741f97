// How wrong passwords are slowed. Each failed sign-in counts against three subjects, each with its
// own growing delay: the pair of email and address (one place guessing one user's password), the
// address (one place trying one password on many emails) and the email (many places guessing one
// user). Past a subject's free failures, each further failure makes it wait twice as long as the
// last, up to a cap. Slowing, never locking: the owner signing in from another address is not held
// back by a guesser's pair or address, and the email's own delay stays short (a minute at most), so
// guesses spread over many addresses slow the owner a little and the guesser a lot. Measured on
// the wall clock: moving the developer clock neither ages nor extends an attacker's failures.
// The operator API's token is guessed the same way, and slowed per address as its own kind; a
// second factor's codes are slowed per user, whoever types them. A payer's consent review is
// opened by anyone, unauthenticated, and writes a row kept a day: each one opened counts against
// the address, so a flood of them is bounded as guesses are.

export type ThrottleKind = 'pair' | 'address' | 'email' | 'operator' | 'second-factor' | 'consent-review';

interface ThrottleRule {
  /** Failures allowed in a row before the first delay. */
  free: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export const SIGN_IN_THROTTLES: Readonly<Record<ThrottleKind, ThrottleRule>> = {
  pair: { free: 5, firstDelayMs: 1_000, maxDelayMs: 15 * 60_000 },
  address: { free: 20, firstDelayMs: 1_000, maxDelayMs: 15 * 60_000 },
  email: { free: 20, firstDelayMs: 1_000, maxDelayMs: 60_000 },
  operator: { free: 10, firstDelayMs: 1_000, maxDelayMs: 15 * 60_000 },
  'second-factor': { free: 5, firstDelayMs: 1_000, maxDelayMs: 15 * 60_000 },
  'consent-review': { free: 10, firstDelayMs: 1_000, maxDelayMs: 15 * 60_000 },
};

/** A subject's failures are forgotten after this long without one: longer than any delay, so waiting one out never restarts the count. */
export const SIGN_IN_MEMORY_MS = 60 * 60_000;

/** Longer input is refused before anything is hashed or stored: RFC 5321 caps an address at 254. */
export const MAX_SIGN_IN_EMAIL = 254;
export const MAX_SIGN_IN_PASSWORD = 1024;

export interface ThrottleState {
  failures: number;
  lastFailureAt: number;
  /** No attempt of the subject is taken before this instant. */
  blockedUntil: number;
}

export interface ThrottleSubject {
  kind: ThrottleKind;
  key: string;
}

/** The subjects one attempt counts against; the email as normalised, the address as the server sees the client. */
export function signInSubjects(email: string, address: string): ThrottleSubject[] {
  return [
    { kind: 'pair', key: `pair:${email}|${address}` },
    { kind: 'address', key: `address:${address}` },
    { kind: 'email', key: `email:${email}` },
  ];
}

/** The subject of wrong operator tokens from one address. */
export const operatorSubject = (address: string): ThrottleSubject => ({ kind: 'operator', key: `operator:${address}` });

/** The subject of wrong second-factor codes of one user: a million codes must not be tried from many places. */
export const secondFactorSubject = (userId: string): ThrottleSubject => ({ kind: 'second-factor', key: `second-factor:${userId}` });

/** The subject of consent reviews opened from one address: each review opened counts, none is taken back. */
export const consentReviewSubject = (address: string): ThrottleSubject => ({ kind: 'consent-review', key: `consent-review:${address}` });

/** How long a subject waits after its `failures`-th failure in a row. */
export function delayAfter(kind: ThrottleKind, failures: number): number {
  const rule = SIGN_IN_THROTTLES[kind];
  if (failures < rule.free) return 0;
  return Math.min(rule.firstDelayMs * 2 ** (failures - rule.free), rule.maxDelayMs);
}

/** The state after one more failure at `now`. */
export function afterFailure(kind: ThrottleKind, state: ThrottleState | undefined, now: number): ThrottleState {
  const failures = state !== undefined && now - state.lastFailureAt < SIGN_IN_MEMORY_MS ? state.failures + 1 : 1;
  return { failures, lastFailureAt: now, blockedUntil: now + delayAfter(kind, failures) };
}

/** The state once an attempt counted as a failure turned out right: that failure taken back. */
export function afterSuccess(state: ThrottleState): ThrottleState {
  return { ...state, failures: Math.max(0, state.failures - 1), blockedUntil: state.lastFailureAt };
}

/**
 * How long to wait before the subjects allow an attempt; 0 when they allow one now. A state that
 * blocks nothing past its last failure holds no one back, whatever `now` says: an attempt that read
 * the clock before another's failure was recorded must not wait for that instant.
 */
export function waitBeforeAttempt(states: readonly (ThrottleState | undefined)[], now: number): number {
  return Math.max(0, ...states.map((state) => (state === undefined || state.blockedUntil <= state.lastFailureAt ? 0 : state.blockedUntil - now)));
}
