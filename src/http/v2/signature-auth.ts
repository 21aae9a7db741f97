// Who is calling the v2 API. Two ways in:
// - x-api-key or Authorization: Bearer, exactly as on v3 (resolveMerchant);
// - the signature the official v2 clients send, Authorization: <receiver_id>:<hash>
//   (domain/v2-signature.ts), over the URL as the client saw it: the public base URL plus the
//   request path, so the clients' default /api/2.0 and the contract's /2.0 both verify.
// A request that carries an API key and a signature is accepted only if both are valid and name
// the same account. The signer is found before the body is read; the hash covers the body, so it
// is checked once the body is parsed (and its type checked, see requireForm) and before it is
// validated: a request that is not signed right learns nothing about its fields. An unknown
// receiver is refused at the same step and in the same words as a wrong hash, so a forger cannot
// tell which receivers exist. Either counts against the client's address as a wrong API key does
// (../credential-failures.ts).
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { forbidden } from '../../domain/errors.js';
import { inGrace, type Merchant } from '../../domain/merchant.js';
import { parseSignatureHeader, requestSignatureMatches, type SignedParam, stringToSign } from '../../domain/v2-signature.js';
import { wallClockMs } from '../../runtime/wall-clock.js';
import { refuseWhileLimited, settleCredential } from '../credential-failures.js';
import { actFor, resolveMerchant, unauthenticated } from '../plugins/auth.js';

interface PendingSignature {
  /** Undefined for a receiver id that names no account. */
  signer: Merchant | undefined;
  receiverId: number;
  hash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A signature whose signer was looked up and whose hash is yet to be checked against the body. */
    v2Signature: PendingSignature | null;
  }
}

/**
 * A receiver id that names no account is remembered for a few seconds, so that forged requests
 * repeating one cost no database lookup each. Briefly, because the id may be given to a new
 * receiver; and in bounded number, because forgers choose the ids.
 */
const UNKNOWN_RECEIVER_TTL_MS = 5_000;
const DECOY_SECRET = randomBytes(20).toString('hex');
const UNKNOWN_RECEIVERS_KEPT = 10_000;

function signerLookup() {
  const unknown = new LRUCache<number, true>({ max: UNKNOWN_RECEIVERS_KEPT, ttl: UNKNOWN_RECEIVER_TTL_MS });
  return async (request: FastifyRequest, receiverId: number): Promise<Merchant | undefined> => {
    if (unknown.has(receiverId)) return undefined;
    const signer = await request.ctx.merchants.byReceiverId(receiverId);
    if (!signer) unknown.set(receiverId, true);
    return signer;
  };
}

export function v2Auth(app: FastifyInstance): void {
  const findSigner = signerLookup();

  async function identify(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const authorization = request.headers.authorization;
    if (!authorization || /^Bearer\b/i.test(authorization)) {
      actFor(request, await resolveMerchant(request, reply));
      return;
    }
    // Once API keys are retired only bearer tokens authenticate: the receiver secret signs nothing either.
    if (request.ctx.config.apiKeysRetired) {
      throw unauthenticated(reply, {
        message: 'Signed requests are retired with API keys on this server: authenticate with Authorization: Bearer <access token> from POST /oauth2/token',
      });
    }
    const header = parseSignatureHeader(authorization);
    if (!header) throw forbidden('Authorization must be <receiver_id>:<hash>, the hash being the 64 hex digits of the HMAC-SHA256 request signature');
    refuseWhileLimited(request, reply);
    const signer = await findSigner(request, header.receiverId);
    const apiKey = request.headers['x-api-key'];
    if (apiKey !== undefined && apiKey !== '') {
      const keyed = await resolveMerchant(request, reply);
      // Said of an unknown receiver too: an API key does not buy an answer about which receivers exist.
      if (keyed.receiverId !== signer?.receiverId) throw forbidden('x-api-key and the request signature belong to different accounts');
    }
    request.v2Signature = { signer, receiverId: header.receiverId, hash: header.hash };
  }

  async function verify(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const pending = request.v2Signature;
    if (!pending) return;
    const queryAt = request.url.indexOf('?');
    const path = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
    const base = request.ctx.config.publicBaseUrl;
    const query: SignedParam[] = queryAt < 0 ? [] : [...new URLSearchParams(request.url.slice(queryAt + 1))];
    const body = request.signedBody;
    // Concatenated, not pushed as arguments: a form may hold more fields than a call may take arguments.
    const params = body && 'params' in body ? query.concat(body.params) : query;
    const jsonBody = body && 'json' in body ? body.json : undefined;
    // An unknown receiver's request is hashed too, with a secret nobody has: answered as fast as a
    // wrong hash of a known one, it cannot tell a forger which receiver ids exist.
    const signed = { method: request.method, base, path, host: request.headers.host, params, jsonBody };
    // A secret replaced with a grace period still signs until the period ends.
    const previous = pending.signer && inGrace(pending.signer.previousSecret, wallClockMs(request.ctx.clock));
    const matches =
      requestSignatureMatches(pending.signer?.secret ?? DECOY_SECRET, pending.hash, signed) ||
      (previous !== undefined && requestSignatureMatches(previous, pending.hash, signed));
    settleCredential(request, reply, pending.signer !== undefined && matches);
    if (pending.signer && matches) {
      actFor(request, pending.signer);
      return;
    }
    request.log.debug(
      {
        receiverId: pending.receiverId,
        knownReceiver: pending.signer !== undefined,
        stringToSign: stringToSign(request.method, base + path, params, jsonBody),
      },
      'v2 signature refused',
    );
    throw forbidden(`Invalid request signature: it must sign ${request.method} ${base + path} with every query and form parameter`);
  }

  app.decorateRequest('v2Signature', null);
  app.addHook('onRequest', identify);
  app.addHook('preValidation', verify);
}
