// A payment notification and its attempts as the notifications API and the CLI show them: the
// outbox's messages of the payment notification kinds, in the shape they had before the outbox
// held other kinds.
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import { attemptView, deliveryStateView } from './message-view.js';

/** '1.3' or '3.0', from the kind (payment.notification.<version>). */
const apiVersionOf = (kind: string) => kind.slice('payment.notification.'.length);

export function notificationView(row: MessageRow) {
  return {
    notification_id: row.message_id,
    payment_id: row.subject_id,
    receiver_id: row.receiver_id,
    api_version: apiVersionOf(row.kind),
    url: row.url,
    ...deliveryStateView(row),
  };
}

/** A notification's attempt: its status code is an HTTP status, named so. */
function notificationAttemptView(row: MessageAttemptRow) {
  const { status_code, error, response_excerpt, ...attempt } = attemptView(row);
  return { ...attempt, http_status: status_code, error, response_excerpt };
}

/** One notification in full: what is sent on every attempt, and every attempt so far. */
export function notificationDetailView(row: MessageRow, attempts: MessageAttemptRow[]) {
  return { ...notificationView(row), content_type: row.content_type, body: row.body, attempt_log: attempts.map(notificationAttemptView) };
}

export type NotificationView = ReturnType<typeof notificationView>;
export type NotificationDetailView = ReturnType<typeof notificationDetailView>;
