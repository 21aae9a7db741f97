// How many wrong credentials one client address may send the APIs: a wrong API key, access token,
// v2 signature or OAuth client secret is a failure, counted in a window that opens with the
// address's first failure. Past the limit the address is refused, whatever it sends, until the
// window closes: a right credential too, since answering it would tell a guesser which guess was
// right. A fixed window, not the sign-in throttle's failures in a row (sign-in-throttle.ts): a
// client that now and then sends an expired token or a replaced key would pile those up over the
// hours, until its every stray 401 shut out everyone behind its address. Twenty a minute is more
// than a client refreshing an expired token sends, and nothing to a guesser of 128 random bits.

export const CREDENTIAL_FAILURE_LIMIT = { count: 20, windowMs: 60_000 } as const;

export interface FailureWindow {
  failures: number;
  endsAt: number;
}

/** The address's window after one more failure at `now`: a closed window starts a new one. */
export function afterCredentialFailure(window: FailureWindow | undefined, now: number): FailureWindow {
  if (window === undefined || window.endsAt <= now) return { failures: 1, endsAt: now + CREDENTIAL_FAILURE_LIMIT.windowMs };
  return { failures: window.failures + 1, endsAt: window.endsAt };
}

/** How long the address waits before any credential of it is taken; 0 when it may send one now. */
export function credentialWait(window: FailureWindow | undefined, now: number): number {
  return window !== undefined && window.failures >= CREDENTIAL_FAILURE_LIMIT.count && window.endsAt > now ? window.endsAt - now : 0;
}
