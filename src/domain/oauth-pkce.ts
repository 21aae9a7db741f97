// PKCE (RFC 7636): the client proves at the token endpoint that it is the one that started the
// authorization. S256 and plain are supported; a challenge demands the verifier, and a verifier
// without a challenge is refused (RFC 9700's downgrade attack: an attacker strips the challenge
// from the authorization request and then presents any verifier).
import { createHash, timingSafeEqual } from 'node:crypto';

export const PKCE_METHODS = ['S256', 'plain'] as const;
export type PkceMethod = (typeof PKCE_METHODS)[number];

// Both the challenge and the verifier are 43 to 128 characters of the unreserved set.
const PKCE_TEXT = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * OAUTH_PKCE: `s256` (a production installation's default) refuses an authorization request
 * without a challenge or with `plain` (RFC 9700 2.1.1, ASVS 10.4.6); `optional` takes what the
 * provider's contract allows: no PKCE, or either method.
 */
export const PKCE_RULES = ['s256', 'optional'] as const;
export type PkceRule = (typeof PKCE_RULES)[number];

/** The methods an installation takes, as its discovery document lists them. */
export const pkceMethodsOf = (rule: PkceRule): readonly PkceMethod[] => (rule === 's256' ? ['S256'] : PKCE_METHODS);

export function isPkceText(text: string): boolean {
  return PKCE_TEXT.test(text);
}

export function isPkceMethod(text: string): text is PkceMethod {
  return (PKCE_METHODS as readonly string[]).includes(text);
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export type PkceOutcome = 'ok' | 'verifier_missing' | 'verifier_unexpected' | 'verifier_malformed' | 'mismatch';

export interface PkceChallenge {
  challenge: string;
  method: PkceMethod;
}

/** Checks the token request's verifier against what the authorization request committed to. */
export function checkPkce(committed: PkceChallenge | null, verifier: string | undefined): PkceOutcome {
  if (!committed) return verifier === undefined ? 'ok' : 'verifier_unexpected';
  if (verifier === undefined) return 'verifier_missing';
  if (!isPkceText(verifier)) return 'verifier_malformed';
  const derived = committed.method === 'S256' ? s256Challenge(verifier) : verifier;
  const a = Buffer.from(derived);
  const b = Buffer.from(committed.challenge);
  return a.length === b.length && timingSafeEqual(a, b) ? 'ok' : 'mismatch';
}
