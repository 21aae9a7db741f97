// An account's operations a page at a time, newest first, for the dashboard: each with its
// descriptor opened (the database keeps nothing of the transfer in clear) and its result as it
// stands now.
import { FieldErrors } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { pageStart, type PageRequest } from '../domain/message-page.js';
import { type Operation, type OperationResult, operationResult } from '../domain/operation.js';
import type { DescriptorContent } from '../domain/operation-descriptor.js';
import { encodePageCursor } from '../domain/page-cursor.js';
import { listOperations } from '../store/operations.js';
import type { AppContext } from './context.js';
import { openDescription } from './operation-queries.js';

export interface ListedOperation {
  operation: Operation;
  /** What the descriptor says; absent only for an expired operation whose key the ring let go. */
  content: DescriptorContent | undefined;
  result: OperationResult;
}

/** `nextCursor`, the next page's `cursor`, is absent on the last page; a bad cursor is a 400 naming it. */
export async function listOperationsPage(
  ctx: AppContext,
  merchant: Merchant,
  request: PageRequest,
): Promise<{ operations: ListedOperation[]; nextCursor?: string }> {
  const errors = new FieldErrors();
  const after = pageStart(errors, request);
  errors.throwIfAny();
  // One more than asked tells whether another page follows.
  const rows = await listOperations(ctx.db, merchant.receiverId, after, request.limit + 1);
  const page = rows.slice(0, request.limit);
  const now = ctx.clock.now();
  const operations: ListedOperation[] = [];
  for (const operation of page)
    operations.push({ operation, content: await openDescription(ctx, operation.description), result: operationResult(operation, now) });
  const last = page.at(-1);
  if (rows.length <= request.limit || !last) return { operations };
  return { operations, nextCursor: encodePageCursor({ at: last.createdAt.getTime(), id: last.operationId }) };
}
