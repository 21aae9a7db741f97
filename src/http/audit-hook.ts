// The API's side of the audit log: a route that moves money or changes an account names its action
// (`config.auditAction`), and once it has answered, a record says which account's credentials asked,
// from where, on what, and how it ended. The dashboard records its own actions with the user who
// signed in (dashboard/index.ts); the operator API its calls (operator/auth.ts).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { audit } from '../app/audit.js';
import { type AuditAction, outcomeOf } from '../domain/audit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The audit log's name of what this route does (domain/audit.ts AUDIT_ACTIONS). */
    auditAction?: AuditAction;
  }
}

/** What a request acted on: its path, without the query string (which may hold a token). */
export const auditTarget = (request: FastifyRequest) => request.url.split('?')[0]!;

export function auditApiCall(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const action = request.routeOptions.config.auditAction;
  const merchant = request.merchant;
  if (action !== undefined && merchant) {
    const receiverId = merchant.receiverId;
    void audit(request.ctx, {
      actorKind: 'api',
      actor: String(receiverId),
      receiverId,
      action,
      target: auditTarget(request),
      outcome: outcomeOf(reply.statusCode),
      address: request.ip,
    });
  }
  done();
}
