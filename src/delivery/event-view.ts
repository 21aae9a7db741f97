// Events (the outbox's messages, of every kind) and their attempts as the events API, `quipu events`
// and `quipu listen` show them. The headers of an attempt are rebuilt exactly: the body is stored,
// and a signature's `t` is the attempt's start, which its log keeps.
import { kindRule } from '../domain/message-kinds.js';
import { signingHeaders } from '../domain/notification-signature.js';
import type { AttemptOfMessage } from '../store/messages.js';
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import { attemptView, deliveryStateView } from './message-view.js';
import { requestHeaders } from './request-headers.js';

/** The URL a message is posted to, or the address an email goes to. */
const addressOf = (url: string) => (url.startsWith('mailto:') ? url.slice('mailto:'.length) : url);

export function eventView(row: MessageRow) {
  return {
    id: row.message_id,
    kind: row.kind,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    receiver_id: row.receiver_id,
    destination: addressOf(row.url),
    ...deliveryStateView(row),
  };
}

/**
 * One event in full: what every attempt sends, and every attempt with the headers it was sent
 * with, signed with `secret` (the account's receiver secret) when its kind is. Headers are HTTP
 * headers: null for kinds that travel by another channel.
 */
export function eventDetailView(row: MessageRow, attempts: MessageAttemptRow[], secret: string) {
  const http = kindRule(row.kind)?.channel === 'http';
  return {
    ...eventView(row),
    content_type: row.content_type,
    body: row.body,
    headers: http ? requestHeaders(row.content_type, {}) : null,
    attempt_log: attempts.map((a) => ({
      ...attemptView(a),
      headers: http ? requestHeaders(row.content_type, signingHeaders(row.signing, secret, a.started_at, row.body)) : null,
      sent_to: a.url ?? addressOf(row.url),
    })),
  };
}

/** A finished attempt with what its event is, as `quipu listen` prints it. */
export function attemptEventView(row: AttemptOfMessage) {
  return {
    event_id: row.message_id,
    kind: row.kind,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    receiver_id: row.receiver_id,
    destination: addressOf(row.url),
    ...attemptView(row),
  };
}
