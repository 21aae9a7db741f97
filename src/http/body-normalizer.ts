// Clients of generated SDKs send unset optional fields as null, and the v2 libraries send them as
// empty text. Both mean "not given"; they are dropped before validation so the rules see one form.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Null and empty fields are values the route refuses, not "not given" (refunds: a refund cannot be undone). */
    keepEmptyFields?: boolean;
  }
}

// A POST or DELETE without a body is an empty object: optional bodies (refunds, v2 delete) work,
// and required fields are named.
function emptyObjectIfMissing(request: FastifyRequest): void {
  if (request.body === undefined && (request.method === 'POST' || request.method === 'DELETE')) request.body = {};
}

/** Drops the null and empty members of `value`, when it is a JSON object (a body, or an object inside one). */
export function dropEmptyMembers(value: unknown): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (member === null || member === '') delete (value as Record<string, unknown>)[key];
    }
  }
}

/**
 * Null and empty members are dropped as "not given", except on routes marked `keepEmptyFields`. A
 * preValidation hook in callback form: it never waits, so it costs no promise.
 */
export function normalizeEmptyFields(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  emptyObjectIfMissing(request);
  if (request.routeOptions.config.keepEmptyFields !== true) dropEmptyMembers(request.body);
  done();
}
