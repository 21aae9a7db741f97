// The API's side of the audit log: a route that moves money or changes an account names its action
// (`config.auditAction`), and once it has answered, a record says which account's credentials asked,
// from where, on what, and how it ended. The dashboard records its own actions with the user who
// signed in (dashboard/index.ts); the operator API its calls (operator/auth.ts).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { audit } from '../app/audit.js';
import { type AuditAction, outcomeOf } from '../domain/audit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The audit log's name of what this route does (domain/audit.ts AUDIT_ACTIONS). */
    auditAction?: AuditAction;
  }
}

/** What a request acted on: its path, without the query string (which may hold a token). */
export function auditTarget(request: FastifyRequest): string {
  const query = request.url.indexOf('?');
  return query === -1 ? request.url : request.url.slice(0, query);
}

function auditApiCall(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const merchant = request.merchant;
  if (merchant) {
    const receiverId = merchant.receiverId;
    void audit(request.ctx, {
      actorKind: 'api',
      actor: String(receiverId),
      receiverId,
      action: request.routeOptions.config.auditAction!,
      target: auditTarget(request),
      outcome: outcomeOf(reply.statusCode),
      address: request.ip,
    });
  }
  done();
}

/** An onRoute hook: only a route that names its action carries the audit hook, so a read pays nothing for it. */
export function auditApiCallsOn(route: RouteOptions): void {
  if (route.config?.auditAction === undefined) return;
  route.onResponse = [...[route.onResponse ?? []].flat(), auditApiCall];
}
