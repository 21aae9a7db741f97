// What a request carries through Fastify: the use-case context (its db may be the request's
// transaction) and the authenticated account.
import type { AppContext } from '../app/context.js';
import type { Merchant } from '../domain/merchant.js';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: AppContext;
    merchant: Merchant | null;
  }
  interface FastifyContextConfig {
    /** POST operations that honour the Idempotency-Key header. */
    idempotent?: boolean;
  }
}

export {};
