// Pages a payer opens by a record's id (a payment, a mandate, an operation) act for the record's
// account: its use cases and the page's own dates follow that account's clock.
import type { FastifyRequest } from 'fastify';
import { forAccount } from '../app/context.js';
import { ownerOf, type OwnedRecord } from '../store/record-owners.js';

/** A preHandler binding the request to the account of the record named by `param`, when there is one. */
export function pageAccount(kindOf: (request: FastifyRequest) => OwnedRecord | undefined, param = 'id') {
  return async (request: FastifyRequest): Promise<void> => {
    const kind = kindOf(request);
    const id = (request.params as Record<string, string | undefined>)[param];
    if (kind === undefined || id === undefined) return;
    const receiverId = await ownerOf(request.ctx.db, kind, id);
    if (receiverId !== undefined) request.ctx = forAccount(request.ctx, receiverId);
  };
}
