// Who is calling the v2 API. Two ways in:
// - x-api-key or Authorization: Bearer, exactly as on v3 (resolveMerchant);
// - the signature the official v2 clients send, Authorization: <receiver_id>:<hash>
//   (domain/v2-signature.ts), over the URL as the client saw it: the public base URL plus the
//   request path, so the clients' default /api/2.0 and the contract's /2.0 both verify.
// A request that carries an API key and a signature is accepted only if both are valid and name
// the same account. The signer is found before the body is read; the hash covers the body, so it
// is checked once the body is parsed (and its type checked, see requireForm) and before it is
// validated: a request that is not signed right learns nothing about its fields.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from '../../domain/errors.js';
import type { Merchant } from '../../domain/merchant.js';
import { parseSignatureHeader, type SignedParam, signatureMatches, stringToSign } from '../../domain/v2-signature.js';
import { resolveMerchant, unauthenticated } from '../plugins/auth.js';

interface PendingSignature {
  signer: Merchant;
  hash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A signature whose signer is known and whose hash is yet to be checked against the body. */
    v2Signature: PendingSignature | null;
  }
}

async function identify(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const authorization = request.headers.authorization;
  if (!authorization || /^Bearer\b/i.test(authorization)) {
    request.merchant = await resolveMerchant(request, reply);
    return;
  }
  // Once API keys are retired only bearer tokens authenticate: the receiver secret signs nothing either.
  if (request.ctx.config.apiKeysRetired) {
    throw unauthenticated(reply, { message: 'Signed requests are retired with API keys on this server: authenticate with Authorization: Bearer <access token> from POST /oauth2/token' });
  }
  const header = parseSignatureHeader(authorization);
  if (!header) throw forbidden('Authorization must be <receiver_id>:<hash>, the hash being the 64 hex digits of the HMAC-SHA256 request signature');
  const signer = await request.ctx.merchants.byReceiverId(header.receiverId);
  if (!signer) throw forbidden(`Unknown receiver ${header.receiverId}`);
  const apiKey = request.headers['x-api-key'];
  if (apiKey !== undefined && apiKey !== '') {
    const keyed = await resolveMerchant(request, reply);
    if (keyed.receiverId !== signer.receiverId) throw forbidden('x-api-key and the request signature belong to different accounts');
  }
  request.v2Signature = { signer, hash: header.hash };
}

async function verify(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const pending = request.v2Signature;
  if (!pending) return;
  const queryAt = request.url.indexOf('?');
  const path = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
  const url = request.ctx.config.publicBaseUrl + path;
  const params: SignedParam[] = queryAt < 0 ? [] : [...new URLSearchParams(request.url.slice(queryAt + 1))];
  const body = request.signedBody;
  if (body && 'params' in body) params.push(...body.params);
  const text = stringToSign(request.method, url, params, body && 'json' in body ? body.json : undefined);
  if (!signatureMatches(pending.signer.secret, text, pending.hash)) {
    request.log.debug({ stringToSign: text }, 'v2 signature does not match');
    throw forbidden(`Invalid request signature: it must sign ${request.method} ${url} with every query and form parameter`);
  }
  request.merchant = pending.signer;
}

export function v2Auth(app: FastifyInstance): void {
  app.decorateRequest('v2Signature', null);
  app.addHook('onRequest', identify);
  app.addHook('preValidation', verify);
}
