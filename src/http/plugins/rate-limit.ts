// Rate limits of the APIs: per account once authenticated, per client address before (the OAuth
// token endpoint), in requests per second; and failed credentials per client address
// (../credential-failures.ts). Off in developer mode unless API_RATE_LIMIT is set (a developer's
// load test is no abuse); 100 a second by default on a production installation, Stripe's default.
// Payer pages, the dashboard and the operator API (its own guess throttle, operator/auth.ts) are
// not counted. The counters are each process's own: N API processes behind a balancer let an
// account make N times the limit.
// Counted here rather than by @fastify/rate-limit, which this replaced: its hook is async and
// awaits three promises a request, and it added three headers to every answer; a production GET
// spent about a twentieth of its CPU on it (docs/benchmarks.md). A count is a map's increment, in
// Fastify's callback form, and only a 429 carries the limit's headers (Stripe's answers carry none).
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { countCredentialFailures } from '../credential-failures.js';

const API_PREFIXES = ['/v3/', '/v1/', '/2.0/', '/api/2.0/', '/quipu/v1/', '/sandbox/', '/oauth2/token', '/oauth2/revoke'];
const WINDOW_MS = 1_000;

/**
 * Requests counted per key in fixed windows of a second of the wall clock: the counts are dropped
 * as a window ends, so what is held is at most the keys of one second's requests.
 */
export class RequestWindows {
  #endsAt = 0;
  #counts = new Map<number | string, number>();

  constructor(readonly max: number) {}

  /** Counts a request of `key` at `now` (epoch ms): 0 when it is within the limit, else the ms until its window ends. */
  take(key: number | string, now: number): number {
    if (now >= this.#endsAt) {
      this.#endsAt = now - (now % WINDOW_MS) + WINDOW_MS;
      this.#counts.clear();
    }
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    return count > this.max ? this.#endsAt - now : 0;
  }
}

/**
 * An account is counted as itself wherever it calls from (its receiver id, a number); a request
 * without one, by its address (a string): the two kinds of key never meet, and neither is built per request.
 */
const keyOf = (request: FastifyRequest): number | string => request.merchant?.receiverId ?? request.ip;

function limitHook(windows: RequestWindows) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const wait = windows.take(keyOf(request), Date.now());
    if (wait === 0) return done();
    const seconds = Math.ceil(wait / 1000);
    void reply
      .header('retry-after', String(seconds))
      .header('x-ratelimit-limit', String(windows.max))
      .header('x-ratelimit-remaining', '0')
      .header('x-ratelimit-reset', String(seconds));
    done(new DomainError('rate_limited', `Rate limit exceeded: at most ${windows.max} requests a second; try again in ${seconds} s`));
  };
}

/**
 * Decided once per route, on the path it was declared with: the router decodes a request's path
 * before matching it, so `/v%33/banks` is answered by /v3/banks and counted as it is, and a page
 * carries no hook of the limit at all. Counted after authentication (so that an account is
 * itself) and before validation, so that a flood of invalid requests is counted too.
 */
export function apiRateLimit(app: FastifyInstance, perSecond: number): void {
  countCredentialFailures(app, perSecond > 0);
  if (perSecond === 0) return;
  const hook = limitHook(new RequestWindows(perSecond));
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!API_PREFIXES.some((prefix) => route.url.startsWith(prefix))) return;
    route.preValidation = [hook, ...[route.preValidation ?? []].flat()];
  });
}
