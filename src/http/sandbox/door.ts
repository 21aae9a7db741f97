// The sandbox's door, in front of its accounts and their snapshots: the installation's OPERATOR_TOKEN
// as a bearer token; where no OPERATOR_TOKEN is set, only an installation listening on loopback alone
// answers, and only to callers on its machine that reach it directly, never through a proxy
// (domain/sandbox-door.ts, docs/security.md). It names who it let in for the audit records: each
// action records what it did in its own transaction; a refusal of a caller let in is recorded here,
// once answered.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { audit, type AuditActor } from '../../app/audit.js';
import { type AuditAction, outcomeOf } from '../../domain/audit.js';
import { DomainError } from '../../domain/errors.js';
import { tokenlessRefusal } from '../../domain/sandbox-door.js';
import { auditTarget } from '../audit-hook.js';
import { requireOperator } from '../operator/auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the sandbox's door let in: the operator's token, or a caller on this machine without one. */
    sandboxCaller: AuditActor | null;
  }
  interface FastifyContextConfig {
    /** What a route of the door does, for the record of a refusal (domain/audit.ts). */
    sandboxAction?: AuditAction;
  }
}

/** The operator's token where one is set; else a direct caller on this machine, on an installation that listens on loopback alone. */
export async function requireSandboxCaller(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { config } = request.ctx;
  if (config.operatorToken) {
    await requireOperator(request, reply);
    request.sandboxCaller = { actorKind: 'operator', actor: request.ip, address: request.ip };
    return;
  }
  const peer = request.socket.remoteAddress ?? '';
  const refusal = tokenlessRefusal({ host: config.host, peer, behindProxy: config.trustProxy !== false, headers: request.headers });
  if (refusal !== undefined) throw new DomainError('forbidden', refusal);
  request.sandboxCaller = { actorKind: 'loopback', actor: peer, address: peer };
}

/** The caller the door let in (its hook ran first). */
export const sandboxCallerOf = (request: FastifyRequest): AuditActor => request.sandboxCaller!;

/**
 * A refused or failed action of a caller the door let in, once answered: what was done is recorded
 * by the action itself, in its transaction. Callers refused at the door leave nothing, so that
 * anyone's flood of them cannot fill the audit log.
 */
export function auditRefusal(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const action = request.routeOptions.config.sandboxAction;
  if (action !== undefined && request.sandboxCaller && reply.statusCode >= 400) {
    const id = (request.params as { receiver_id?: number }).receiver_id;
    void audit(request.ctx, {
      ...request.sandboxCaller,
      receiverId: id ?? null,
      action,
      target: auditTarget(request),
      outcome: outcomeOf(reply.statusCode),
    });
  }
  done();
}
