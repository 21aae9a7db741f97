// Every request of the merchant APIs that authenticated as an account (an API key, a v2 signature,
// a bearer token: request.merchant is set) goes to that account's request log, wherever the process's
// sink puts it (ctx.requestRecords, app/request-records.ts), whatever its answer; dashboard pages,
// payer pages and health checks are no account's API calls.
// A row holds no credential and no request body: the method, the path without its query string
// (which may hold a token), the status, the duration, the request id, the fields the answer said
// it ignored, and the beginning of an error answer's body, which is Quipu's own words.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppContext } from '../app/context.js';
import { auditTarget } from './audit-hook.js';
import { IGNORED_FIELDS_HEADER } from './ignored-fields.js';

/** The first 4 KB of an error answer: the message and the fields it names, never megabytes of a client's echo. */
export const ERROR_BODY_CHARS = 4096;
/** Paths are at most a few ids long; a path parameter may be 16 KB (server.ts). */
const PATH_CHARS = 2048;

declare module 'fastify' {
  interface FastifyRequest {
    /** The beginning of the body of a 4xx or 5xx answer to an account, kept for its request log. */
    errorBody: string | null;
  }
}

const excerpt = (payload: unknown): string | null =>
  typeof payload === 'string' || Buffer.isBuffer(payload) ? String(payload).slice(0, ERROR_BODY_CHARS) : null;

/** Where nothing is recorded (REQUEST_LOG_STORE=off, REQUEST_LOG_RETENTION_DAYS=0, the log stream above info): not even a hook. */
export function recordRequests(app: FastifyInstance, ctx: AppContext): void {
  const records = ctx.requestRecords;
  if (!records.recording) return;
  app.decorateRequest('errorBody', null);
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    if (request.merchant && reply.statusCode >= 400) request.errorBody = excerpt(payload);
    done(null, payload);
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const merchant = request.merchant;
    if (merchant) {
      const ignored = reply.getHeader(IGNORED_FIELDS_HEADER);
      records.add({
        receiver_id: merchant.receiverId,
        // request.ctx acts for the account: its clock is the account's.
        at: request.ctx.clock.now().getTime(),
        method: request.method,
        path: auditTarget(request).slice(0, PATH_CHARS),
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime),
        request_id: request.id,
        ignored_fields: ignored === undefined ? null : String(ignored),
        error_body: request.errorBody,
      });
    }
    done();
  });
  // Closing waits for the requests in flight, then writes what they left.
  app.addHook('onClose', () => records.flush());
}
