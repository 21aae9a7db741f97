// What the issued JWTs say and how long the flow's pieces live.
//
// Access tokens (RFC 9068 profile, `typ: at+jwt`): iss and aud are the service's public base URL
// (it is both the authorization server and the resource server), sub and client_id are the
// account (receiver_id) the token acts for, in both flows. ID tokens: sub is the user's subject
// for this client (stable across flows, opaque: not the RUT), aud the client_id.
import { createHash } from 'node:crypto';
import type { FieldError } from './errors.js';
import { type Merchant, secretAuthenticates } from './merchant.js';

export const TOKEN_ALGORITHM = 'ES256';
export const ACCESS_TOKEN_TYPE = 'at+jwt';
/** The contract: one full year, and no refresh tokens. */
export const TOKEN_LIFETIME_SECONDS = 31_536_000;
/**
 * The longest a token lives in real time (wall clock ms), whatever its exp says: exp is on its
 * account's clock, which a developer moves ahead, and a token issued ten years ahead would live
 * eleven once that clock is reset. Checked on every use, so it bounds every token ever issued.
 */
export const MAX_TOKEN_LIFE_MS = TOKEN_LIFETIME_SECONDS * 1000;

/** Whether a token issued at `wallIssuedAt` has lived its maximum at `wallNow` (both wall clock ms). */
const outlivedMaximum = (wallIssuedAt: number, wallNow: number): boolean => wallNow - wallIssuedAt >= MAX_TOKEN_LIFE_MS;

/** What of a stored token its row does not change: when it was issued, and with which of its account's secrets. */
export interface TokenOrigin {
  secret_generation: number;
  wall_issued_at: number;
}

/**
 * Whether an unrevoked token still lives at `wallNow` (wall clock ms), its exp aside: it ends at
 * its longest life, and with the secret it was obtained with (at the end of a rotation's grace).
 */
export const tokenLives = (token: TokenOrigin, account: Pick<Merchant, 'secretGeneration' | 'previousSecret'>, wallNow: number): boolean =>
  !outlivedMaximum(token.wall_issued_at, wallNow) && secretAuthenticates(account, token.secret_generation, wallNow);

/** Authorization codes are single-use and short-lived (RFC 9700: at most 10 minutes). */
export const CODE_LIFETIME_MS = 10 * 60_000;
/** How long the user has for each step: to sign in at the institution (else A003), then to consent (else E001). */
export const FLOW_STEP_TIMEOUT_MS = 10 * 60_000;

export const API_SCOPE = 'api';
const KNOWN_SCOPES = new Set(['openid', API_SCOPE]);

export interface AccessTokenInput {
  issuer: string;
  receiverId: number;
  jti: string;
  now: Date;
  scope: string;
  custom: string | null;
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

export function accessTokenClaims(input: AccessTokenInput): Record<string, unknown> {
  const iat = seconds(input.now);
  const account = String(input.receiverId);
  return {
    iss: input.issuer,
    sub: account,
    aud: input.issuer,
    client_id: account,
    iat,
    exp: iat + TOKEN_LIFETIME_SECONDS,
    jti: input.jti,
    scope: input.scope,
    ...(input.custom !== null ? { custom: input.custom } : {}),
  };
}

export interface IdTokenInput {
  issuer: string;
  clientId: number;
  subject: string;
  now: Date;
  authTime: Date;
  nonce: string | null;
  custom: string | null;
}

export function idTokenClaims(input: IdTokenInput): Record<string, unknown> {
  const iat = seconds(input.now);
  return {
    iss: input.issuer,
    sub: input.subject,
    aud: String(input.clientId),
    iat,
    exp: iat + TOKEN_LIFETIME_SECONDS,
    auth_time: seconds(input.authTime),
    ...(input.nonce !== null ? { nonce: input.nonce } : {}),
    ...(input.custom !== null ? { custom: input.custom } : {}),
  };
}

/**
 * The scope a client_credentials token gets: `api` (there is no user, so nothing for `openid` to
 * name). RFC 6749 §3.3 lets the server grant another scope than asked and say so in the response:
 * a scope Quipu does not know is not granted, and named in `doubts`.
 */
export function clientCredentialsScope(requested: string | undefined, doubts: FieldError[] = []): string {
  const unknown = (requested ?? '').split(' ').some((name) => name !== '' && !KNOWN_SCOPES.has(name));
  if (unknown) doubts.push({ field: 'scope', message: `names a scope Quipu does not know: only ${API_SCOPE} is granted` });
  return API_SCOPE;
}

/** Instants of the token's life in milliseconds, as stored. */
export function tokenExpiry(now: Date): number {
  return (seconds(now) + TOKEN_LIFETIME_SECONDS) * 1000;
}

/**
 * A flow's secrets, its authorization code and the secret of the browser it is bound to, are
 * stored as this hash: a leaked table holds no usable code and lets no one pose as the browser.
 */
export function flowSecretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
