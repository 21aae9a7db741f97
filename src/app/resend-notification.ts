// Sends a notification again, now: the same body and ids, as a new round of delivery (if it fails,
// the retry schedule starts over from this moment). An attempt already in flight finishes first.
import { DomainError, notFound } from '../domain/errors.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { findNotificationRow, restartDelivery } from '../store/notifications.js';
import type { NotificationRow } from '../store/schema.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

export async function resendNotification(ctx: AppContext, notificationId: string, receiverId?: number): Promise<NotificationRow> {
  return inTransaction(ctx.db, async (trx) => {
    if (!(await findNotificationRow(trx, notificationId, receiverId))) throw notFound('Notification');
    if (!(await restartDelivery(trx, notificationId, ctx.clock.now().getTime(), wallClockMs(ctx.clock)))) {
      throw new DomainError('conflict', 'A delivery attempt of this notification is in progress; try again shortly');
    }
    return (await findNotificationRow(trx, notificationId))!;
  });
}
