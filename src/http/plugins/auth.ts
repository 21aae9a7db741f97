// Authentication of the merchant APIs. A request carries exactly one credential: the account's
// API key in x-api-key, or a bearer token in Authorization (never both: the contract forbids it).
// It runs before the body is read, so an unauthenticated request costs almost nothing. A wrong
// credential counts against the client's address (../credential-failures.ts).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { forAccount } from '../../app/context.js';
import { DomainError, fieldError } from '../../domain/errors.js';
import { UUID_PATTERN } from '../../domain/ids.js';
import type { Merchant } from '../../domain/merchant.js';
import { refuseWhileLimited, settleCredential } from '../credential-failures.js';

const CHALLENGE = 'Bearer realm="quipu"';

// Each says what to do next: the first thing a developer reads when a request is refused.
const MISSING = 'Missing credentials: send your API key in the x-api-key header (or an access token as Authorization: Bearer <token>)';
const UNKNOWN_KEY = "Unknown API key: check the x-api-key value against your account's API key";
const KEY_AS_BEARER = 'This is an API key: send it in the x-api-key header, or get an access token from POST /oauth2/token';
const INVALID_TOKEN = 'Invalid or expired access token: get a new one from POST /oauth2/token';

/**
 * A 401 of the merchant APIs. RFC 7235 wants a challenge on every 401: it names the bearer scheme,
 * the one that remains once API keys are retired. RFC 6750 adds `error="invalid_token"` when a
 * token was sent; neither the header nor the body says which check the token failed.
 */
export function unauthenticated(reply: FastifyReply, options: { message?: string; tokenSent?: boolean } = {}): DomainError {
  reply.header('www-authenticate', options.tokenSent ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE);
  return new DomainError('unauthenticated', options.message ?? MISSING);
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}

type Credential = { apiKey: string } | { bearer: string | undefined };

/** The one credential the request carries, or a 400/401 for none, both, or a retired API key. */
function credentialOf(request: FastifyRequest, reply: FastifyReply): Credential {
  const apiKey = request.headers['x-api-key'];
  const hasBearer = /^Bearer\b/i.test(request.headers.authorization ?? '');
  if (apiKey !== undefined && hasBearer) {
    throw fieldError('x-api-key', 'send either x-api-key or Authorization: Bearer, never both');
  }
  // The contract's announced retirement of API keys: refused as a credential that no longer
  // authenticates (401), with a message saying what to send instead.
  if (apiKey !== undefined && request.ctx.config.apiKeysRetired) {
    throw unauthenticated(reply, {
      message: 'API keys are retired on this server: authenticate with Authorization: Bearer <access token> from POST /oauth2/token',
    });
  }
  if (typeof apiKey === 'string' && apiKey !== '') return { apiKey };
  if (hasBearer) return { bearer: bearerToken(request) };
  throw unauthenticated(reply);
}

async function merchantOf(request: FastifyRequest, reply: FastifyReply, credential: Credential): Promise<Merchant> {
  if ('apiKey' in credential) {
    const merchant = await request.ctx.merchants.byApiKey(credential.apiKey);
    settleCredential(request, reply, merchant !== undefined);
    if (merchant) return merchant;
    throw unauthenticated(reply, { message: UNKNOWN_KEY });
  }
  const merchant = credential.bearer ? await request.ctx.bearer?.verify(credential.bearer) : undefined;
  // `Bearer` without a token guesses nothing.
  if (credential.bearer) settleCredential(request, reply, merchant !== undefined);
  if (merchant) return merchant;
  // Access tokens are JWTs; a UUID is what an API key looks like, pasted into the wrong header.
  const message = credential.bearer && UUID_PATTERN.test(credential.bearer.toLowerCase()) ? KEY_AS_BEARER : INVALID_TOKEN;
  throw unauthenticated(reply, { tokenSent: true, message });
}

/** Resolves the request's credential to an account, or fails with 400/401 (429 while its address is past its failures). */
export async function resolveMerchant(request: FastifyRequest, reply: FastifyReply): Promise<Merchant> {
  const credential = credentialOf(request, reply);
  refuseWhileLimited(request, reply);
  return merchantOf(request, reply, credential);
}

/** The request acts for this account from here on: its use cases date the account's records on the account's clock. */
export function actFor(request: FastifyRequest, merchant: Merchant): void {
  request.merchant = merchant;
  request.ctx = forAccount(request.ctx, merchant.receiverId);
}

export async function requireMerchant(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  actFor(request, await resolveMerchant(request, reply));
}

/**
 * requireMerchant as an onRequest hook in callback form. Nearly every request carries an API key
 * or a bearer token whose account is cached: that one is resolved at once, without a promise or a
 * turn of the microtask queue; any other waits for resolveMerchant.
 */
export function authenticate(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  let credential: Credential;
  try {
    credential = credentialOf(request, reply);
    refuseWhileLimited(request, reply);
  } catch (error) {
    return done(error as Error);
  }
  const cached =
    'apiKey' in credential ? request.ctx.merchants.cachedByApiKey(credential.apiKey) : credential.bearer && request.ctx.bearer?.cached(credential.bearer);
  if (cached) {
    actFor(request, cached);
    return done();
  }
  merchantOf(request, reply, credential).then((merchant) => {
    actFor(request, merchant);
    done();
  }, done);
}
