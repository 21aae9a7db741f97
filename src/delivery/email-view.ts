// An email as the emails API and `quipu emails` show it: what was written, as stored (the same on
// every attempt), and where its delivery stands.
import { decodeEmail, storedAttachments, storedFields } from '../domain/email-message.js';
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import { attemptView, deliveryStateView } from './message-view.js';

export function emailView(row: MessageRow) {
  const email = decodeEmail(row.body);
  return {
    id: row.message_id,
    kind: row.kind,
    payment_id: row.subject_id,
    receiver_id: row.receiver_id,
    ...storedFields(email),
    attachments: storedAttachments(email.attachments),
    ...deliveryStateView(row),
  };
}

/** One email and every attempt to hand it to the mail server (or to keep it in the inbox). */
export function emailDetailView(row: MessageRow, attempts: MessageAttemptRow[]) {
  return { ...emailView(row), attempt_log: attempts.map(attemptView) };
}
