// Authentication of the merchant APIs. A request carries exactly one credential: the account's
// API key in x-api-key, or a bearer token in Authorization (never both: the contract forbids it).
// It runs before the body is read, so an unauthenticated request costs almost nothing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, fieldError } from '../../domain/errors.js';
import type { Merchant } from '../../domain/merchant.js';

const unauthenticated = () => new DomainError('unauthenticated', 'Missing or invalid credentials');

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}

/** Resolves the request's credential to an account, or fails with 400/401. */
export async function resolveMerchant(request: FastifyRequest): Promise<Merchant> {
  const apiKey = request.headers['x-api-key'];
  const hasBearer = /^Bearer\b/i.test(request.headers.authorization ?? '');
  if (apiKey !== undefined && hasBearer) {
    throw fieldError('x-api-key', 'send either x-api-key or Authorization: Bearer, never both');
  }
  // The contract's announced retirement of API keys: refused as a credential that no longer
  // authenticates (401), with a message saying what to send instead.
  if (apiKey !== undefined && request.ctx.config.apiKeysRetired) {
    throw new DomainError('unauthenticated', 'API keys are retired on this server: authenticate with Authorization: Bearer <access token> from POST /oauth2/token');
  }
  if (typeof apiKey === 'string' && apiKey !== '') {
    const merchant = await request.ctx.merchants.byApiKey(apiKey);
    if (merchant) return merchant;
    throw unauthenticated();
  }
  if (hasBearer) {
    const token = bearerToken(request);
    const merchant = token ? await request.ctx.verifyBearer?.(token) : undefined;
    if (merchant) return merchant;
  }
  throw unauthenticated();
}

export async function requireMerchant(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  request.merchant = await resolveMerchant(request);
}
