// The automatic payment API's answers, as its documentation publishes them.
import { Type } from '@sinclair/typebox';
import { WIRE_STATUSES, wireStatus } from '../../domain/mandate-status.js';
import { NO_BANK, type Subscription } from '../../domain/subscription.js';

export const SubscriptionCreated = Type.Object({
  subscription_id: Type.String({ description: 'Unique subscription identifier (UUID), used later to read its status and to charge it' }),
  redirect_url: Type.String({ description: 'Where the payer signs the debit mandate with their bank' }),
});

export const SubscriptionStatus = Type.Object({
  subscription_id: Type.String({ description: 'Unique identifier' }),
  status: Type.String({
    enum: [...WIRE_STATUSES],
    description: 'DISABLED (not signed, or rejected, or revoked), SIGNED (signed, the bank has yet to activate it) or ENABLED (may be charged)',
  }),
  developer: Type.Boolean({ description: 'True if created by a developer-mode account' }),
  customer_bank_code: Type.String({ description: 'Bank id (payment API) the payer signed at; no-bank before' }),
  service_reference: Type.String({ description: 'The value associated with the subscription (empty when none was given)' }),
});

export const ChargeIntentCreated = Type.Object({
  payment_id: Type.String({ description: "The charge's payment: read and notified like any payment" }),
});

export function subscriptionStatus(subscription: Subscription) {
  return {
    subscription_id: subscription.subscriptionId,
    status: wireStatus(subscription.state),
    developer: subscription.developer,
    customer_bank_code: subscription.bankId ?? NO_BANK,
    service_reference: subscription.serviceReference ?? '',
  };
}
