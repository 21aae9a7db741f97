// THE place a subscription's mandate changes. The row is locked, the event goes through the
// transition table (domain/mandate-status.ts), and the change, its line in the history (what
// happened, why, who caused it) and the signing notification it sends commit together.
import type { Kysely } from 'kysely';
import { signingNotification } from '../domain/automatic-payment-messages.js';
import { notFound } from '../domain/errors.js';
import { newUuid } from '../domain/ids.js';
import { applyMandateEvent, canApplyMandateEvent, type MandateEvent, type MandateOrigin, signingNotificationStatus } from '../domain/mandate-status.js';
import type { Subscription } from '../domain/subscription.js';
import type { DB, SubscriptionUpdate } from '../store/schema.js';
import { findSubscriptionById, insertMandateChange, updateSubscription } from '../store/subscriptions.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

export interface MandateChangeRequest {
  event: MandateEvent;
  origin: MandateOrigin;
  reason: string;
  /** Other columns to set (the payer's bank and account, when signed). */
  fields?: Omit<SubscriptionUpdate, 'state' | 'version' | 'updated_at'>;
}

/**
 * Applies `change` to the subscription. `ifAllowed`: a change the mandate's state no longer allows
 * (a bank's news applied twice, a payer who revoked meanwhile) is skipped and the subscription
 * returned as it is, instead of refused.
 */
export async function changeSubscription(
  ctx: AppContext,
  subscriptionId: string,
  change: MandateChangeRequest,
  options: { ifAllowed?: boolean } = {},
): Promise<Subscription> {
  return inTransaction(ctx.db, async (trx) => {
    const subscription = await findSubscriptionById(trx, subscriptionId, { lock: true });
    if (!subscription) throw notFound('Subscription');
    if (options.ifAllowed && !canApplyMandateEvent(subscription.state, change.event)) return subscription;
    const to = applyMandateEvent(subscription.state, change.event);
    const now = ctx.clocks.of(subscription.receiverId).now();
    if (!(await updateSubscription(trx, subscriptionId, subscription.version, { ...change.fields, state: to, updated_at: now.getTime() }))) {
      throw new Error(`subscription ${subscriptionId} changed during its own transaction`);
    }
    await insertMandateChange(trx, {
      changeId: newUuid(ctx.random),
      subscriptionId,
      event: change.event,
      from: subscription.state,
      to,
      origin: change.origin,
      reason: change.reason,
      changedAt: now,
    });
    const changed = (await findSubscriptionById(trx, subscriptionId))!;
    await notify(ctx, trx, changed, change.event);
    return changed;
  });
}

async function notify(ctx: AppContext, trx: Kysely<DB>, subscription: Subscription, event: MandateEvent): Promise<void> {
  const status = signingNotificationStatus(event);
  if (status) await ctx.outbox.write(trx, signingNotification(subscription, status));
}
