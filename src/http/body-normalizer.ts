// Clients of generated SDKs send unset optional fields as null, and the v2 libraries send them as
// empty text. Both mean "not given"; they are dropped before validation so the rules see one form.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** A preValidation hook in callback form: it never waits, so it costs no promise. */
export function dropEmptyFields(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  // A POST without a body is an empty object: optional bodies (refunds) work, and required fields are named.
  if (request.body === undefined && request.method === 'POST') request.body = {};
  const body = request.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const [key, value] of Object.entries(body)) {
      if (value === null || value === '') delete (body as Record<string, unknown>)[key];
    }
  }
  done();
}
