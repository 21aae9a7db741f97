// The operator API (and /metrics on a production installation) answers only to the bearer token in
// OPERATOR_TOKEN (at least 32 characters, config.ts); without one configured it answers to nobody.
// Tokens are compared through their hashes, in constant time. Wrong tokens are slowed per client
// address with growing delays (domain/sign-in-throttle.ts, shared by every process through the
// database), and every call, refused or not, is written to the log and the audit log with who
// called and the answer.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { reserveAttempt } from '../../app/attempt-throttle.js';
import { audit } from '../../app/audit.js';
import { outcomeOf } from '../../domain/audit.js';
import { DomainError } from '../../domain/errors.js';
import { operatorSubject, waitBeforeAttempt } from '../../domain/sign-in-throttle.js';
import { wallClockMs } from '../../runtime/wall-clock.js';
import { readThrottle } from '../../store/sign-in-throttles.js';
import { auditTarget } from '../audit-hook.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

function tokenMatches(request: FastifyRequest, expected: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(expected));
}

/**
 * Whether the address may try now, and a wrong token counted as a failure, in one transaction, so
 * that parallel guesses are each counted. A right token only reads its address's row, and writes
 * nothing.
 */
async function checkToken(request: FastifyRequest, reply: FastifyReply, expected: string): Promise<void> {
  const subject = operatorSubject(request.ip);
  const now = wallClockMs(request.ctx.clock);
  const matches = tokenMatches(request, expected);
  const wait = matches ? waitBeforeAttempt([await readThrottle(request.ctx.db, subject.key)], now) : await reserveAttempt(request.ctx.db, [subject], now);
  if (wait > 0) {
    void reply.header('retry-after', String(Math.ceil(wait / 1000)));
    throw new DomainError('rate_limited', 'Too many wrong operator tokens from this address: try again later');
  }
  if (!matches) throw new DomainError('unauthenticated', 'Missing or invalid operator token');
}

export async function requireOperator(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const expected = request.ctx.config.operatorToken;
  if (!expected) throw new DomainError('forbidden', 'The operator API is disabled: set OPERATOR_TOKEN');
  await checkToken(request, reply, expected);
}

/** The onResponse hook of the operator's scopes: every call, with its caller's address and outcome, in the log and the audit log. */
export function logOperatorCall(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  request.log.info({ operator_call: true, method: request.method, url: request.url, address: request.ip, status: reply.statusCode }, 'operator call');
  const target = `${request.method} ${auditTarget(request)}`;
  void audit(request.ctx, {
    actorKind: 'operator',
    actor: request.ip,
    receiverId: null,
    action: 'operator.call',
    target,
    outcome: outcomeOf(reply.statusCode),
    address: request.ip,
  });
  done();
}
