// Signing and checking JWTs with the key ring. Verification pins the algorithm (ES256): `none`,
// HS256 keyed with the public key and every other algorithm are refused before any key is used.
import { compactVerify, type JWSHeaderParameters, jwtVerify, SignJWT } from 'jose';
import { ACCESS_TOKEN_TYPE, TOKEN_ALGORITHM } from '../domain/oauth-tokens.js';
import type { KeyRing, SigningKey } from './token-keys.js';

/** Signs with a key fetched beforehand (`KeyRing.signingKey()`), so signing never reads the database inside a transaction. */
export async function signJwt({ kid, key }: SigningKey, claims: Record<string, unknown>, typ: string): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: TOKEN_ALGORITHM, kid, typ }).sign(key);
}

function keyResolver(keys: KeyRing) {
  return async (header: JWSHeaderParameters) => {
    const key = header.kid ? await keys.verificationKey(header.kid) : undefined;
    if (!key) throw new Error('unknown signing key');
    return key;
  };
}

/** What the service needs from a valid access token. */
export interface AccessTokenFacts {
  jti: string;
  receiverId: number;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

const ACCOUNT = /^\d{1,15}$/;

/** Every check of an access token but revocation; undefined when any fails (the caller says nothing more). */
export async function verifyAccessToken(keys: KeyRing, token: string, issuer: string, now: Date): Promise<AccessTokenFacts | undefined> {
  try {
    const { payload } = await jwtVerify(token, keyResolver(keys), {
      algorithms: [TOKEN_ALGORITHM],
      issuer,
      audience: issuer,
      typ: ACCESS_TOKEN_TYPE,
      currentDate: now,
      requiredClaims: ['jti', 'sub', 'iat', 'exp'],
    });
    const { jti, sub, exp } = payload;
    if (typeof jti !== 'string' || typeof sub !== 'string' || !ACCOUNT.test(sub) || typeof exp !== 'number') return undefined;
    if (payload.client_id !== undefined && payload.client_id !== sub) return undefined;
    return { jti, receiverId: Number(sub), exp };
  } catch {
    return undefined;
  }
}

/** The claims of a token this service signed, whatever its expiry (revocation accepts expired tokens). */
export async function readOwnToken(keys: KeyRing, token: string): Promise<Record<string, unknown> | undefined> {
  try {
    const { payload } = await compactVerify(token, keyResolver(keys), { algorithms: [TOKEN_ALGORITHM] });
    const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
    return claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
