// Rate limits of the APIs (@fastify/rate-limit): per account once authenticated, per client address
// before (the OAuth token endpoint), in requests per second; and failed credentials per client
// address (../credential-failures.ts). Off in developer mode unless API_RATE_LIMIT is set (a
// developer's load test is no abuse); 100 a second by default on a production installation,
// Stripe's default. Payer pages, the dashboard and the operator API (its own guess throttle,
// operator/auth.ts) are not counted. The counters are each process's own: N API processes behind a
// balancer let an account make N times the limit.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { countCredentialFailures } from '../credential-failures.js';

const API_PREFIXES = ['/v3/', '/v1/', '/2.0/', '/api/2.0/', '/quipu/v1/', '/sandbox/', '/oauth2/token', '/oauth2/revoke'];

/**
 * Decided once per route, on the path it was declared with: the router decodes a request's path
 * before matching it, so `/v%33/banks` is answered by /v3/banks and counted as it is, and a page
 * carries no hook of the limit at all.
 */
function limitApiRoutesOnly(route: RouteOptions): void {
  if (!API_PREFIXES.some((prefix) => route.url.startsWith(prefix))) route.config = { ...route.config, rateLimit: false };
}

export async function apiRateLimit(app: FastifyInstance, perSecond: number): Promise<void> {
  countCredentialFailures(app, perSecond > 0);
  if (perSecond === 0) return;
  // Before the plugin's own onRoute hook, which reads the route's rateLimit.
  app.addHook('onRoute', limitApiRoutesOnly);
  await app.register(rateLimit, {
    global: true,
    // After authentication, so that an account is counted as itself wherever it calls from.
    hook: 'preHandler',
    max: perSecond,
    timeWindow: 1_000,
    keyGenerator: (request: FastifyRequest) => (request.merchant ? `account:${request.merchant.receiverId}` : `address:${request.ip}`),
    errorResponseBuilder: (_request, context) =>
      new DomainError('rate_limited', `Rate limit exceeded: at most ${context.max} requests a second; try again in ${context.after}`),
  });
}
