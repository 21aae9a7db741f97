// Failed credentials at the APIs, counted per client address (domain/credential-failures.ts) where
// the APIs' rate limits are on. Each process counts its own, in memory, as the rate limits do: the
// look is made on every API request, and a database read there would cost more than the request.
// An address is looked at before its credential is checked, so a refused one costs no lookup, and
// again once the answer is known, in the same turn as the count: guesses sent in parallel, all past
// the first look before any failed, are refused once the limit is reached instead of each answered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { afterCredentialFailure, CREDENTIAL_FAILURE_LIMIT, credentialWait, type FailureWindow } from '../domain/credential-failures.js';
import { DomainError } from '../domain/errors.js';
import { wallClockMs } from '../runtime/wall-clock.js';

/** Addresses remembered at most, the least recently failed forgotten first: a guesser with more addresses gets fresh ones anyway. */
const ADDRESSES_KEPT = 10_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** Each address's window of failures; null where API_RATE_LIMIT is 0. */
    credentialFailures: LRUCache<string, FailureWindow> | null;
  }
}

export function countCredentialFailures(app: FastifyInstance, on: boolean): void {
  // A window is forgotten as it closes (its first failure sets the time, later ones do not move
  // it): while no address is inside one, the look each request makes is the cache's size alone.
  const options = { max: ADDRESSES_KEPT, ttl: CREDENTIAL_FAILURE_LIMIT.windowMs, ttlAutopurge: true, noUpdateTTL: true };
  app.decorate('credentialFailures', on ? new LRUCache<string, FailureWindow>(options) : null);
}

/** While the request's address is past its failures, a 429 with Retry-After, for a right credential as for a wrong one. */
export function refuseWhileLimited(request: FastifyRequest, reply: FastifyReply): void {
  const failures = request.server.credentialFailures;
  // No address inside a window is the usual case: not even the address is read.
  if (failures === null || failures.size === 0) return;
  const window = failures.peek(request.ip);
  const wait = window === undefined ? 0 : credentialWait(window, wallClockMs(request.ctx.clock));
  if (wait === 0) return;
  const seconds = Math.ceil(wait / 1000);
  reply.header('retry-after', String(seconds));
  throw new DomainError('rate_limited', `Too many failed credentials from this address: try again in ${seconds} s`);
}

/** A credential checked: refused while the address is past its failures, and counted if it was wrong. */
export function settleCredential(request: FastifyRequest, reply: FastifyReply, right: boolean): void {
  refuseWhileLimited(request, reply);
  const failures = request.server.credentialFailures;
  if (right || failures === null) return;
  failures.set(request.ip, afterCredentialFailure(failures.get(request.ip), wallClockMs(request.ctx.clock)));
}
