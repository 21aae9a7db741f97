// Idempotency-Key on POST operations (Stripe's semantics, see docs/api-conventions.md):
// - the first request with a key claims it, runs, and stores its answer in the same transaction
//   as its work, so a stored answer always means the work happened;
// - the same key and body again replays that answer with `Idempotent-Replayed: true`;
// - the same key with another body is 422; while the first request runs, 409 with Retry-After;
// - a request that fails stores nothing and releases the key, since it changed nothing;
// - a request that ran past IDEMPOTENCY_LOCK_SECONDS may have lost its claim to a retry: it then
//   cannot store its answer, so its transaction rolls back and it answers 409 (the retry's work stands).
// Bodies compare by content, not by the order of their keys. Stored answers are sealed like
// receiver secrets: a receiver's creation answers with its secret.
import { createHash } from 'node:crypto';
import { stringify as canonicalJson } from 'safe-stable-stringify';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';
import { DomainError, fieldError } from '../../domain/errors.js';
import { claimIdempotencyKey, type IdempotencyRecord, releaseIdempotencyKey, retakeIdempotencyKey, storeIdempotentResponse } from '../../store/idempotency.js';
import { inTransaction } from '../../store/transaction.js';
import { withDb } from '../../app/context.js';

const HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 255;

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url} ${canonicalJson(request.params)} ${canonicalJson(request.body ?? null)}`)
    .digest('hex');
}

type Claim = { replay: IdempotencyRecord } | { claimed: IdempotencyRecord };

const stillRunning = () => new DomainError('conflict', 'A request with this Idempotency-Key is still being processed');

async function claim(request: FastifyRequest, key: string): Promise<Claim> {
  const { ctx } = request;
  const now = ctx.clock.now().getTime();
  const record: IdempotencyRecord = {
    receiver_id: request.merchant!.receiverId,
    idem_key: key,
    request_hash: requestHash(request),
    response_status: null,
    response_body: null,
    locked_until: now + ctx.config.idempotencyLockSeconds * 1000,
    expires_at: now + ctx.config.idempotencyTtlHours * 3_600_000,
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await claimIdempotencyKey(ctx.db, record);
    if (!existing) return { claimed: record };
    if (existing.expires_at <= now) {
      if (await retakeIdempotencyKey(ctx.db, existing, record)) return { claimed: record };
      continue;
    }
    if (existing.request_hash !== record.request_hash) {
      throw new DomainError('unprocessable', 'This Idempotency-Key was already used with a different request');
    }
    if (existing.response_status !== null) return { replay: existing };
    // Its request is still running, or died before committing (then it did nothing and the key can be taken over).
    if (existing.locked_until > now) throw stillRunning();
    if (await retakeIdempotencyKey(ctx.db, existing, record)) return { claimed: record };
  }
  throw stillRunning();
}

function wrap(handler: RouteHandlerMethod): RouteHandlerMethod {
  return async function idempotent(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const key = request.headers[HEADER];
    if (key === undefined) return handler.call(this, request, reply);
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw fieldError('Idempotency-Key', `must be between 1 and ${MAX_KEY_LENGTH} characters`);
    }
    const outcome = await claim(request, key);
    if ('replay' in outcome) {
      reply.code(outcome.replay.response_status!).header('idempotent-replayed', 'true');
      return JSON.parse(request.ctx.secrets.open(outcome.replay.response_body!));
    }
    const base = request.ctx;
    const held = outcome.claimed;
    try {
      return await inTransaction(base.db, async (trx) => {
        request.ctx = withDb(base, trx);
        const payload = await handler.call(this, request, reply);
        if (!(await storeIdempotentResponse(trx, held, reply.statusCode, base.secrets.seal(JSON.stringify(payload ?? null))))) throw stillRunning();
        return payload;
      });
    } catch (error) {
      await releaseIdempotencyKey(base.db, held);
      throw error;
    } finally {
      request.ctx = base;
    }
  };
}

// Documents the header in the OpenAPI document. It is validated here, not by the schema: only the
// type, which a header always has, so no request is refused by it and no other header is affected
// (the route's header schema stays open), and a wrong length is a 400 naming Idempotency-Key.
const KEY_HEADER = {
  type: 'string',
  description: `Optional, 1 to ${MAX_KEY_LENGTH} characters: the same key and request again replays the stored answer (Idempotent-Replayed: true)`,
};

interface HeaderSchema {
  properties?: Record<string, unknown>;
}

/**
 * Wraps the handler of every route registered after it whose config says `idempotent`, and adds
 * the optional Idempotency-Key to its header schema.
 */
export function idempotencyPlugin(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.idempotent) return;
    route.handler = wrap(route.handler as RouteHandlerMethod);
    const headers = route.schema?.headers as HeaderSchema | undefined;
    route.schema = { ...route.schema, headers: { type: 'object', ...headers, properties: { ...headers?.properties, [HEADER]: KEY_HEADER } } };
  });
}
