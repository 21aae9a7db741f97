// The test event a developer sends from the dashboard's Settings to the account's notify_url: JSON
// signed as a 3.0 notification (x-khipu-signature under the receiver secret), whatever the account's
// notify_api_version, so a receiver's signature check is what it tests. It names no payment: a
// handler tells it from a payment notification by its "event" field.
import { formatDateTime } from './dates.js';
import type { MessageDraft } from './message-kinds.js';
import { providerJson } from './notification-body.js';

export function testEventMessage(receiverId: number, url: string, now: number): MessageDraft {
  return {
    kind: 'receiver.test',
    receiverId,
    subjectId: String(receiverId),
    url,
    contentType: 'application/json',
    body: providerJson({ event: 'test', receiver_id: receiverId, sent_at: formatDateTime(now) }),
  };
}
