// Creates a subscription from the automatic payment API: one insert, its mandate `created` until
// the payer signs at their bank.
import type { FieldError } from '../domain/errors.js';
import type { RawValue } from '../domain/field-rules.js';
import { newUuid } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { notifyPolicy } from '../domain/network-address.js';
import type { Subscription } from '../domain/subscription.js';
import { parseSubscriptionRequest } from '../domain/subscription-request.js';
import { insertSubscription, toSubscription } from '../store/subscriptions.js';
import type { SubscriptionsTable } from '../store/schema.js';
import type { AppContext } from './context.js';

/**
 * Values accepted that are likely mistakes are added to `doubts`, for developers to hear of.
 * `subscriptionId` is drawn at random but for the demo account's (app/demo-account.ts).
 */
export async function createSubscription(
  ctx: AppContext,
  merchant: Merchant,
  raw: Readonly<Record<string, RawValue>>,
  found: readonly FieldError[] = [],
  doubts: FieldError[] = [],
  subscriptionId: string = newUuid(ctx.random),
): Promise<Subscription> {
  const req = parseSubscriptionRequest(raw, notifyPolicy(merchant, ctx.config), found, doubts);
  const at = ctx.clock.now().getTime();
  const row: SubscriptionsTable = {
    subscription_id: subscriptionId,
    receiver_id: merchant.receiverId,
    name: req.name,
    email: req.email,
    max_amount: req.maxAmount,
    currency: req.currency,
    notify_url: req.notifyUrl,
    return_url: req.returnUrl,
    cancel_url: req.cancelUrl,
    service_reference: req.serviceReference ?? null,
    image_url: req.imageUrl ?? null,
    description: req.description ?? null,
    developer: merchant.developer ? 1 : 0,
    state: 'created',
    bank_id: null,
    payer_identifier: null,
    payer_account: null,
    payer_name: null,
    version: 1,
    created_at: at,
    updated_at: at,
  };
  await insertSubscription(ctx.db, row);
  return toSubscription(row);
}
