// The transactional outbox: the notification of a reconciled payment is written in the
// reconciliation's own transaction, so a committed payment always has its notification and a
// rolled-back one never does. The delivery worker picks it up from there.
import type { Kysely } from 'kysely';
import type { AppContext } from '../app/context.js';
import { newUuid } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import { type NotifyApiVersion, notificationBody } from '../domain/notification-body.js';
import type { Payment } from '../domain/payment.js';
import { insertNotification } from '../store/notifications.js';
import type { DB } from '../store/schema.js';
import { destinationOf } from './destinations.js';

export async function enqueuePaymentNotification(ctx: AppContext, trx: Kysely<DB>, payment: Payment, merchant: Merchant): Promise<void> {
  const url = payment.notifyUrl ?? merchant.notifyUrl;
  // Neither the payment nor the account names a URL: there is nobody to tell, and no row is kept.
  if (!url) return;
  const version = (payment.notifyApiVersion ?? merchant.notifyApiVersion) as NotifyApiVersion;
  const { contentType, body } = notificationBody(version, payment);
  const now = ctx.clock.now().getTime();
  await insertNotification(trx, {
    notification_id: newUuid(ctx.random),
    receiver_id: merchant.receiverId,
    payment_id: payment.paymentId,
    api_version: version,
    url,
    destination: destinationOf(url),
    content_type: contentType,
    body,
    status: 'pending',
    attempts: 0,
    round_step: 0,
    round_started_at: now,
    next_attempt_at: now,
    lease_id: null,
    locked_until: null,
    delivered_at: null,
    created_at: now,
    updated_at: now,
  });
}
