// /oauth2/authorize: checks the request and opens a flow, whose pages (sign-in at the institution,
// then consent) the user goes through next, in the browser that started it: that browser gets a
// secret (for a cookie) whose hash the flow keeps, and the pages answer no other browser.
import type { FieldError } from '../domain/errors.js';
import { type AuthorizationRequest, checkAuthorizationRequest, parseClientId, type Query } from '../domain/oauth-request.js';
import { FLOW_STEP_TIMEOUT_MS, flowSecretHash } from '../domain/oauth-tokens.js';
import { insertAuthorization } from '../store/oauth-authorizations.js';
import { redirectUrisOf } from '../store/oauth-redirect-uris.js';
import { type Delivery, errorDelivery } from './authorization-steps.js';
import type { AppContext } from './context.js';

export type AuthorizationStart =
  /** A bad client_id or redirect_uri: shown to the user, never redirected to. */
  | { outcome: 'refused'; parameter: string; message: string }
  /** Any other problem, delivered to the client. */
  | { outcome: 'redirect'; delivery: Delivery }
  /** `browserSecret` goes to the starting browser only; the flow's pages ask it back. */
  | { outcome: 'started'; authorizationId: string; browserSecret: string };

/** Values accepted as likely slips (an empty state, the scopes in another order) are added to `doubts`. */
export async function startAuthorization(ctx: AppContext, query: Query, doubts: FieldError[] = []): Promise<AuthorizationStart> {
  const raw = query.client_id;
  const clientId = parseClientId(typeof raw === 'string' ? raw : undefined);
  const merchant = clientId === undefined ? undefined : await ctx.merchants.byReceiverId(clientId);
  const client = merchant && {
    receiverId: merchant.receiverId,
    developer: merchant.developer,
    redirectUris: await redirectUrisOf(ctx.db, merchant.receiverId),
  };
  const check = checkAuthorizationRequest(query, client, (bankId) => ctx.banks.connectorFor(bankId) !== undefined, doubts, ctx.config.oauthPkce);
  if (check.outcome === 'refused') return check;
  if (check.outcome === 'redirect-error') return { outcome: 'redirect', delivery: errorDelivery(check.redirectUri, check.error, check) };
  return openFlow(ctx, check.request);
}

async function openFlow(ctx: AppContext, request: AuthorizationRequest): Promise<AuthorizationStart> {
  const now = ctx.clock.now().getTime();
  const authorizationId = Buffer.from(ctx.random(18)).toString('base64url');
  const browserSecret = Buffer.from(ctx.random(32)).toString('base64url');
  await insertAuthorization(ctx.db, {
    authorization_id: authorizationId,
    receiver_id: request.clientId,
    redirect_uri: request.redirectUri,
    response_mode: request.responseMode,
    state: request.state,
    nonce: request.nonce,
    custom: request.custom,
    institution_id: request.institutionId,
    code_challenge: request.pkce?.challenge ?? null,
    code_challenge_method: request.pkce?.method ?? null,
    status: 'login',
    step_deadline: now + FLOW_STEP_TIMEOUT_MS,
    user_id: null,
    authenticated_at: null,
    consent_id: null,
    code_hash: null,
    code_expires_at: null,
    redeemed_at: null,
    created_at: now,
    browser_hash: flowSecretHash(browserSecret),
  });
  return { outcome: 'started', authorizationId, browserSecret };
}
