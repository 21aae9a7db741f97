// The operator API answers only to the bearer token in OPERATOR_TOKEN; without one configured it
// answers to nobody. Tokens are compared through their hashes, in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

export async function requireOperator(request: FastifyRequest): Promise<void> {
  const expected = request.ctx.config.operatorToken;
  if (!expected) throw new DomainError('forbidden', 'The operator API is disabled: set OPERATOR_TOKEN');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match || !timingSafeEqual(digest(match[1]!), digest(expected))) throw new DomainError('unauthenticated', 'Missing or invalid operator token');
}
