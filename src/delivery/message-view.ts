// What every view of messages shows alike (notifications, emails, events): where a message's
// delivery stands, and each attempt as logged.
import { formatDateTime } from '../domain/dates.js';
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';

const instant = (ms: number | null) => (ms === null ? null : formatDateTime(ms));

/** Where any message stands in its delivery, as every view of messages shows it. */
export function deliveryStateView(row: MessageRow) {
  return {
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? instant(row.next_attempt_at) : null,
    delivered_at: instant(row.delivered_at),
    created_at: formatDateTime(row.created_at),
    updated_at: formatDateTime(row.updated_at),
  };
}

/** An attempt of any message, as logged. */
export function attemptView(row: MessageAttemptRow) {
  return {
    number: row.number,
    trigger: row.trigger,
    due_at: formatDateTime(row.due_at),
    started_at: formatDateTime(row.started_at),
    latency_ms: row.latency_ms,
    outcome: row.outcome,
    status_code: row.status_code,
    error: row.error,
    response_excerpt: row.response_excerpt,
  };
}
