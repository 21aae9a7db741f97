// Faults on demand at an account's API (developer mode, docs/sandbox-faults.md): while the account's
// faults have refusals left, each of its v3, v2 and v1 requests is refused with 429 or 503 and
// Retry-After once authenticated, before its body is validated and its handler runs (nothing
// changes), as a provider's rate limiter refuses; then, while drops are left, each runs and
// commits, and its connection is closed instead of answered, as when a provider's answer is lost on
// the way. /sandbox/* is spared, so a test can always read and remove its faults.
//
// An onRoute hook, added only where SANDBOX is on: a production installation's routes carry
// nothing of it. Each check joins hooks every API route already runs (the NUL refusal's
// preValidation, the server's onSend), so an account without faults pays one look at its faults
// (MerchantDirectory.faultsOf) and no hook runner of its own: a preHandler of its own cost GETs a
// twentieth more CPU (docs/benchmarks.md).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { takeRequestFault } from '../app/sandbox-faults.js';
import { DomainError } from '../domain/errors.js';
import { countsRequests } from '../domain/sandbox-faults.js';

const API_PREFIXES = ['/v3/', '/v1/', '/2.0/', '/api/2.0/'];

/** Requests whose connection is to be closed once their answer is ready (and durable). */
const dropping = new WeakSet<FastifyRequest>();

/** After authentication (v2 signatures included), before validation: a refused request changed nothing. */
function takeFault(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const merchant = request.merchant;
  if (merchant === null || !countsRequests(request.ctx.merchants.faultsOf(merchant))) return done();
  takeRequestFault(request.ctx, merchant).then((fault) => {
    if (fault === 'drop') dropping.add(request);
    if (fault === null || fault === 'drop') return done();
    const { status, retryAfterSeconds } = fault.refuse;
    reply.header('retry-after', String(retryAfterSeconds));
    const why = status === 429 ? 'Too many requests' : 'Service unavailable';
    done(
      new DomainError(status === 429 ? 'rate_limited' : 'unavailable', `${why}: try again in ${retryAfterSeconds} s (a sandbox fault: GET /sandbox/faults)`),
    );
  }, done);
}

/** The last onSend hook of the route: the server's own (the wait for the commit to be durable) have run. */
function dropConnection(request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if (dropping.has(request)) request.raw.socket.destroy();
  done(null, payload);
}

export function apiFaultsOn(route: RouteOptions): void {
  if (!API_PREFIXES.some((prefix) => route.url.startsWith(prefix))) return;
  route.preValidation = [...[route.preValidation ?? []].flat(), takeFault];
  route.onSend = [...[route.onSend ?? []].flat(), dropConnection];
}
