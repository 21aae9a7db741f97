// What the merchant reads of a subscription: its status, and its mandate's history with its charges.
import { notFound } from '../domain/errors.js';
import type { Debit } from '../domain/debit.js';
import type { Merchant } from '../domain/merchant.js';
import type { Subscription } from '../domain/subscription.js';
import { debitsOfSubscription } from '../store/debits.js';
import { findSubscription, listSubscriptions, type MandateChange, mandateChanges } from '../store/subscriptions.js';
import type { AppContext } from './context.js';

export async function getSubscription(ctx: AppContext, merchant: Pick<Merchant, 'receiverId'>, subscriptionId: string): Promise<Subscription> {
  const subscription = await findSubscription(ctx.db, merchant.receiverId, subscriptionId);
  if (!subscription) throw notFound('Subscription');
  return subscription;
}

export interface SubscriptionDetail {
  subscription: Subscription;
  history: MandateChange[];
  charges: Debit[];
}

const CHARGES_SHOWN = 100;

export async function getSubscriptionDetail(ctx: AppContext, merchant: Pick<Merchant, 'receiverId'>, subscriptionId: string): Promise<SubscriptionDetail> {
  const subscription = await getSubscription(ctx, merchant, subscriptionId);
  return { subscription, history: await mandateChanges(ctx.db, subscriptionId), charges: await debitsOfSubscription(ctx.db, subscriptionId, CHARGES_SHOWN) };
}

/** The account's most recent subscriptions, newest first. */
export async function recentSubscriptions(ctx: AppContext, merchant: Pick<Merchant, 'receiverId'>, limit: number): Promise<Subscription[]> {
  return listSubscriptions(ctx.db, { receiverId: merchant.receiverId, limit });
}
