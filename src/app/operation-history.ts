// An operation with everything about it, for the dashboard's operation page: its result exactly as
// GET /quipu/v1/operations/{id} answers it, every `operation.result` message sent with its
// attempts, and for a developer the descriptor's content as GET /sandbox/descriptors/{id} shows it.
// Only the account's own operation: another account's id is not found.
import { DomainError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { OperationResult } from '../domain/operation.js';
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import type { AppContext } from './context.js';
import { messagesAbout } from './message-queries.js';
import { type DescriptorView, getOperationResult, showDescriptor } from './operation-queries.js';

export interface OperationHistory {
  result: OperationResult;
  messages: { message: MessageRow; attempts: MessageAttemptRow[] }[];
  /** Only when asked for (developer mode), and while the descriptor still opens. */
  descriptor?: DescriptorView;
}

async function descriptorOf(ctx: AppContext, merchant: Merchant, operationId: string): Promise<DescriptorView | undefined> {
  try {
    return await showDescriptor(ctx, operationId, merchant.receiverId);
  } catch (error) {
    // The operation is the account's (its result was read): what is missing is its descriptor, an
    // expired one whose key the ring let go.
    if (error instanceof DomainError && error.kind === 'not_found') return undefined;
    throw error;
  }
}

export async function getOperationHistory(
  ctx: AppContext,
  merchant: Merchant,
  operationId: string,
  options: { developer: boolean },
): Promise<OperationHistory> {
  const result = await getOperationResult(ctx, merchant, operationId);
  const messages = await messagesAbout(ctx, merchant.receiverId, operationId, ['operation.result']);
  return { result, messages, descriptor: options.developer ? await descriptorOf(ctx, merchant, operationId) : undefined };
}
