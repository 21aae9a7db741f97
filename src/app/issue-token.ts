// POST /oauth2/token: the client credentials grant, and the authorization code grant that redeems
// a flow's code. Only the token's jti is stored, with the account, the flow and the consent it came
// from (what revocation needs), the generation of the secret the client authenticated with and the
// wall-clock time of issue (what each use checks besides exp). No refresh tokens are ever issued.
import type { Insertable } from 'kysely';
import type { FieldError } from '../domain/errors.js';
import { newUuid } from '../domain/ids.js';
import { TokenEndpointError } from '../domain/oauth-errors.js';
import { checkPkce, isPkceMethod } from '../domain/oauth-pkce.js';
import { FLOW_SCOPE } from '../domain/oauth-request.js';
import {
  ACCESS_TOKEN_TYPE,
  accessTokenClaims,
  clientCredentialsScope,
  flowSecretHash,
  idTokenClaims,
  TOKEN_LIFETIME_SECONDS,
  tokenExpiry,
} from '../domain/oauth-tokens.js';
import { consumeCode, findAuthorizationByCode, findConsentSubject } from '../store/oauth-authorizations.js';
import { insertToken, revokeTokens } from '../store/oauth-tokens.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import type { OAuthAuthorizationRow, OAuthTokensTable } from '../store/schema.js';
import type { AuthenticatedClient } from './authenticate-client.js';
import { REVOKED_TOPIC } from './bearer-verifier.js';
import type { AppContext } from './context.js';
import { signJwt } from './signed-tokens.js';
import type { KeyRing } from './token-keys.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  scope: string;
  id_token?: string;
}

export interface IssuedTokens {
  body: TokenResponse;
  /** The authorization request's custom value (x-custom header). */
  custom: string | null;
}

type TokenOrigin = Pick<OAuthTokensTable, 'grant_type' | 'authorization_id' | 'consent_id'>;

/** A token's row: `now` on its account's clock, and the secret's generation and the wall clock for the checks of each use. */
function tokenRow(ctx: AppContext, client: AuthenticatedClient, jti: string, now: Date, origin: TokenOrigin): Insertable<OAuthTokensTable> {
  return {
    jti,
    receiver_id: client.merchant.receiverId,
    ...origin,
    issued_at: now.getTime(),
    expires_at: tokenExpiry(now),
    revoked_at: null,
    secret_generation: client.secretGeneration,
    wall_issued_at: wallClockMs(ctx.clocks),
  };
}

/** A requested scope Quipu does not grant is added to `doubts`; the response's `scope` says what was granted. */
export async function issueClientCredentialsToken(
  ctx: AppContext,
  keys: KeyRing,
  client: AuthenticatedClient,
  requestedScope: string | undefined,
  doubts: FieldError[] = [],
): Promise<IssuedTokens> {
  const scope = clientCredentialsScope(requestedScope, doubts);
  // A token's iat and exp are on its account's clock.
  const receiverId = client.merchant.receiverId;
  const now = ctx.clocks.of(receiverId).now();
  const jti = newUuid(ctx.random);
  const accessToken = await signJwt(
    await keys.signingKey(),
    accessTokenClaims({ issuer: ctx.config.publicBaseUrl, receiverId, jti, now, scope, custom: null }),
    ACCESS_TOKEN_TYPE,
  );
  await insertToken(ctx.db, tokenRow(ctx, client, jti, now, { grant_type: 'client_credentials', authorization_id: null, consent_id: null }));
  return { body: { access_token: accessToken, token_type: 'bearer', expires_in: TOKEN_LIFETIME_SECONDS, scope }, custom: null };
}

export interface CodeRedemption {
  code: string | undefined;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
}

/** Why a code that is still unused cannot be redeemed with these parameters, if it cannot. */
function redemptionProblem(row: OAuthAuthorizationRow, params: CodeRedemption, now: number): string | undefined {
  if (row.status !== 'code') return 'the authorization was withdrawn';
  if (row.code_expires_at === null || row.code_expires_at <= now) return 'the code has expired';
  if (row.redirect_uri !== params.redirectUri) return 'redirect_uri does not match the authorization request';
  const method = row.code_challenge_method;
  const committed = row.code_challenge !== null && method !== null && isPkceMethod(method) ? { challenge: row.code_challenge, method } : null;
  switch (checkPkce(committed, params.codeVerifier)) {
    case 'ok':
      return undefined;
    case 'verifier_missing':
      return 'code_verifier is required: the authorization request sent a code_challenge';
    case 'verifier_unexpected':
      return 'code_verifier was sent but the authorization request had no code_challenge';
    case 'verifier_malformed':
      return 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~';
    case 'mismatch':
      return 'code_verifier does not match the code_challenge';
  }
}

type Redemption = { ok: true; tokens: IssuedTokens } | { ok: false; description: string };

/**
 * Redeems a code. The first redemption attempt by its client uses the code up, whatever its
 * outcome; a code presented again is refused and revokes every token issued from it (RFC 9700).
 */
export async function redeemAuthorizationCode(ctx: AppContext, keys: KeyRing, client: AuthenticatedClient, params: CodeRedemption): Promise<IssuedTokens> {
  if (!params.code) throw new TokenEndpointError('invalid_request', 'code is required');
  if (!params.redirectUri) throw new TokenEndpointError('invalid_request', 'redirect_uri is required');
  const codeHash = flowSecretHash(params.code);
  const signingKey = await keys.signingKey();
  const receiverId = client.merchant.receiverId;
  const outcome = await ctx.feed.transaction(ctx.db, async (trx, publish): Promise<Redemption> => {
    const row = await findAuthorizationByCode(trx, codeHash);
    if (!row || row.receiver_id !== receiverId) return { ok: false, description: 'the code is not valid for this client' };
    const now = ctx.clocks.of(receiverId).now();
    const replayed = async (): Promise<Redemption> => {
      for (const jti of await revokeTokens(trx, { authorizationId: row.authorization_id }, now.getTime())) await publish(REVOKED_TOPIC, jti);
      return { ok: false, description: 'the code was already used; the tokens issued from it are revoked' };
    };
    if (row.redeemed_at !== null) return replayed();
    const problem = redemptionProblem(row, params, now.getTime());
    if (!(await consumeCode(trx, row.authorization_id, now.getTime(), problem ? 'failed' : 'done'))) return replayed();
    if (problem) return { ok: false, description: problem };
    const subject = await findConsentSubject(trx, row.consent_id!);
    if (subject === undefined) throw new Error(`authorization ${row.authorization_id} has no consent`);
    const jti = newUuid(ctx.random);
    const issuer = ctx.config.publicBaseUrl;
    const accessToken = await signJwt(
      signingKey,
      accessTokenClaims({ issuer, receiverId, jti, now, scope: FLOW_SCOPE, custom: row.custom }),
      ACCESS_TOKEN_TYPE,
    );
    const idToken = await signJwt(
      signingKey,
      idTokenClaims({ issuer, clientId: receiverId, subject, now, authTime: new Date(row.authenticated_at!), nonce: row.nonce, custom: row.custom }),
      'JWT',
    );
    await insertToken(
      trx,
      tokenRow(ctx, client, jti, now, { grant_type: 'authorization_code', authorization_id: row.authorization_id, consent_id: row.consent_id }),
    );
    return {
      ok: true,
      tokens: {
        body: { access_token: accessToken, token_type: 'bearer', expires_in: TOKEN_LIFETIME_SECONDS, scope: FLOW_SCOPE, id_token: idToken },
        custom: row.custom,
      },
    };
  });
  if (!outcome.ok) throw new TokenEndpointError('invalid_grant', outcome.description);
  return outcome.tokens;
}
