// Reading operations: by the operation id or by the descriptor itself (the SDK takes either), the
// result an account reads, and the decrypted content a developer looks at.
import { notFound } from '../domain/errors.js';
import { UUID_PATTERN } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { amountToNumber, parseAmount, SCALE } from '../domain/money.js';
import { isExpired, type Operation, type OperationResult, operationResult } from '../domain/operation.js';
import { type DescriptorContent, ENVELOPE_VERSION, openEnvelope, readEnvelope } from '../domain/operation-descriptor.js';
import { findOperation } from '../store/operations.js';
import type { AppContext } from './context.js';
import { merchantOf } from './merchant-of.js';

export interface OpenedOperation {
  operation: Operation;
  /** What the descriptor says; absent only for an expired operation whose key the ring let go. */
  content: DescriptorContent | undefined;
  merchant: Merchant;
}

/** The content of a description whose tag verifies under a key of the ring, or undefined (tampered, truncated, foreign). */
export async function openDescription(ctx: AppContext, description: string): Promise<DescriptorContent | undefined> {
  const envelope = readEnvelope(description);
  const key = envelope && (await ctx.descriptorKeys.openingKey(envelope.k));
  return key && openEnvelope(envelope, key);
}

/**
 * The operation `ref` names: an operation id, or a descriptor Quipu issued. Anything else (an
 * unknown id, a descriptor that does not verify, one of another installation) is not found, so a
 * page shows nothing of it.
 */
export async function openOperation(ctx: AppContext, ref: string): Promise<OpenedOperation> {
  const byId = UUID_PATTERN.test(ref);
  const fromRef = byId ? undefined : await openDescription(ctx, ref);
  if (!byId && !fromRef) throw notFound('Operation');
  const operation = await findOperation(ctx.db, fromRef?.operationId ?? ref);
  if (!operation || (fromRef && fromRef.receiverId !== operation.receiverId)) throw notFound('Operation');
  const content = fromRef ?? (await openDescription(ctx, operation.description));
  if (!content && !isExpired(operation, ctx.clocks.of(operation.receiverId).now()))
    throw new Error(`the descriptor of operation ${operation.operationId} does not open with the key ring`);
  return { operation, content, merchant: await merchantOf(ctx, operation.receiverId) };
}

/** GET /quipu/v1/operations/{id}: the account's own operations only. */
export async function getOperationResult(ctx: AppContext, merchant: Merchant, operationId: string): Promise<OperationResult> {
  const operation = UUID_PATTERN.test(operationId) ? await findOperation(ctx.db, operationId) : undefined;
  if (!operation || operation.receiverId !== merchant.receiverId) throw notFound('Operation');
  return operationResult(operation, ctx.clock.now());
}

export type DescriptorView = Awaited<ReturnType<typeof showDescriptor>>;

/** What a descriptor holds, decrypted, for a developer (`receiverId`: an account sees its own only). */
export async function showDescriptor(ctx: AppContext, ref: string, receiverId?: number) {
  const { operation, content } = await openOperation(ctx, ref);
  if (receiverId !== undefined && operation.receiverId !== receiverId) throw notFound('Operation');
  if (!content) throw notFound('Descriptor');
  const { amount, ...params } = content.params;
  const units = amount === undefined ? undefined : parseAmount(amount, SCALE);
  return {
    operation_id: operation.operationId,
    receiver_id: operation.receiverId,
    envelope: { v: ENVELOPE_VERSION, k: operation.keyId },
    bank: content.bank,
    params: units?.ok ? { ...params, amount: amountToNumber(units.units) } : params,
    created_at: new Date(content.createdAt).toISOString(),
    expires_at: new Date(content.expiresAt).toISOString(),
    state: operation.state,
    result: operationResult(operation, ctx.clock.now()).result,
  };
}
