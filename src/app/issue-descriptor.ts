// Issues an operation descriptor: one AES-GCM seal under the ring's current key and one insert of
// the operation (id, account, bank, expiry, state and the sealed descriptor; nothing of params in
// clear).
import type { FieldError } from '../domain/errors.js';
import { newUuid } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { operationEvent } from '../domain/operation.js';
import { OPERATION_LIFETIME_MS, parseDescriptorRequest, sealDescriptor } from '../domain/operation-descriptor.js';
import { insertOperation } from '../store/operations.js';
import type { AppContext } from './context.js';

export interface IssuedDescriptor {
  operationId: string;
  description: string;
}

const NONCE_BYTES = 12;

/** Values accepted that are likely mistakes are added to `doubts`, for developers to hear of. */
export async function issueDescriptor(
  ctx: AppContext,
  merchant: Merchant,
  raw: Readonly<Record<string, unknown>>,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
): Promise<IssuedDescriptor> {
  const request = parseDescriptorRequest(raw, found, doubts);
  const key = await ctx.descriptorKeys.sealingKey();
  const now = ctx.clock.now();
  const operationId = newUuid(ctx.random);
  const expiresAt = now.getTime() + OPERATION_LIFETIME_MS;
  const content = { operationId, receiverId: merchant.receiverId, bank: request.bank, params: request.params, createdAt: now.getTime(), expiresAt };
  const description = sealDescriptor(content, key, ctx.random(NONCE_BYTES));
  await insertOperation(ctx.db, {
    operation_id: operationId,
    receiver_id: merchant.receiverId,
    key_id: key.kid,
    bank: request.bank,
    description,
    state: 'issued',
    bank_id: null,
    payer_identifier: null,
    payer_account: null,
    payer_name: null,
    failure: null,
    events: JSON.stringify([operationEvent('OPERATION_ISSUED', now)]),
    expires_at: expiresAt,
    created_at: now.getTime(),
    updated_at: now.getTime(),
  });
  return { operationId, description };
}
