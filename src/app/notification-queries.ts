// Reading notifications and their attempts: an account sees its own (`receiverId`); the operator's
// CLI may look across accounts.
import { notFound } from '../domain/errors.js';
import { listAttemptRows, listNotificationRows, findNotificationRow, type NotificationFilter } from '../store/notifications.js';
import type { NotificationAttemptRow, NotificationRow } from '../store/schema.js';
import type { AppContext } from './context.js';

export async function listNotifications(ctx: AppContext, filter: NotificationFilter): Promise<NotificationRow[]> {
  return listNotificationRows(ctx.db, filter);
}

export async function getNotification(ctx: AppContext, notificationId: string, receiverId?: number): Promise<{ notification: NotificationRow; attempts: NotificationAttemptRow[] }> {
  const notification = await findNotificationRow(ctx.db, notificationId, receiverId);
  if (!notification) throw notFound('Notification');
  return { notification, attempts: await listAttemptRows(ctx.db, notificationId) };
}
