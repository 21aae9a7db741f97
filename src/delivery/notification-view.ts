// A notification and its attempts as the merchant API and the CLI show them.
import { formatDateTime } from '../domain/dates.js';
import type { NotificationAttemptRow, NotificationRow } from '../store/schema.js';

const instant = (ms: number | null) => (ms === null ? null : formatDateTime(ms));

export function notificationView(row: NotificationRow) {
  return {
    notification_id: row.notification_id,
    payment_id: row.payment_id,
    receiver_id: row.receiver_id,
    api_version: row.api_version,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? instant(row.next_attempt_at) : null,
    delivered_at: instant(row.delivered_at),
    created_at: formatDateTime(row.created_at),
    updated_at: formatDateTime(row.updated_at),
  };
}

export function attemptView(row: NotificationAttemptRow) {
  return {
    number: row.number,
    trigger: row.trigger,
    due_at: formatDateTime(row.due_at),
    started_at: formatDateTime(row.started_at),
    latency_ms: row.latency_ms,
    outcome: row.outcome,
    http_status: row.http_status,
    error: row.error,
    response_excerpt: row.response_excerpt,
  };
}

/** One notification in full: what is sent on every attempt, and every attempt so far. */
export function notificationDetailView(row: NotificationRow, attempts: NotificationAttemptRow[]) {
  return { ...notificationView(row), content_type: row.content_type, body: row.body, attempt_log: attempts.map(attemptView) };
}

export type NotificationView = ReturnType<typeof notificationView>;
export type NotificationDetailView = ReturnType<typeof notificationDetailView>;
