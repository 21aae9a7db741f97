// Every kind of message Quipu sends: what it is about, how it travels and how it is signed. The
// outbox writes messages of these kinds, the delivery worker sends them by their channel, and the
// events API filters on them. A new kind of message is a new row here.

/** How a message travels: an HTTP POST to a URL, or an email. */
export type Channel = 'http' | 'email';

/** How a message is signed, per attempt: `khipu-signature` is the 3.0 notification's x-khipu-signature under the receiver secret. */
export type Signing = 'none' | 'khipu-signature';

/** What a message is about: its `subject_id` is a payment id, a receiver id, ... */
export type SubjectType = 'payment' | 'receiver' | 'subscription' | 'operation';

export interface KindRule {
  channel: Channel;
  subject: SubjectType;
  signing: Signing;
  description: string;
}

export const MESSAGE_KINDS = {
  'payment.notification.1.3': {
    channel: 'http',
    subject: 'payment',
    signing: 'none',
    description: 'Payment reconciled, notification API 1.3: a form with the notification_token',
  },
  'payment.notification.3.0': {
    channel: 'http',
    subject: 'payment',
    signing: 'khipu-signature',
    description: 'Payment reconciled, notification API 3.0: the payment as JSON, signed',
  },
  'receiver.accountability': {
    channel: 'http',
    subject: 'receiver',
    signing: 'khipu-signature',
    description: "Funds delivered: the delivery's payments and total as JSON, signed, to the receiver's rendition_url",
  },
  'payment.email.collection': {
    channel: 'email',
    subject: 'payment',
    signing: 'none',
    description: 'A collection request emailed to the payer (send_email), written with the payment',
  },
  'payment.email.reminder': {
    channel: 'email',
    subject: 'payment',
    signing: 'none',
    description: 'A reminder emailed to the payer before expiry while the payment is unpaid (send_reminders)',
  },
  'payment.email.confirmation': {
    channel: 'email',
    subject: 'payment',
    signing: 'none',
    description: "A reconciled payment's confirmation emailed to its payer, in the payer's language, with the receipt PDF attached",
  },
  'subscription.signing': {
    channel: 'http',
    subject: 'subscription',
    signing: 'khipu-signature',
    description:
      "A mandate's signing finished, or the payer revoked it: {subscription_id, status: enabled|disabled} as JSON, signed, to the subscription's notify_url",
  },
  'payment.charge.error': {
    channel: 'http',
    subject: 'payment',
    signing: 'khipu-signature',
    description: "A charge intent's debit failed: {subscription_id, transaction_id, error_message} as JSON, signed, to its error_response_url",
  },
  'operation.result': {
    channel: 'http',
    subject: 'operation',
    signing: 'khipu-signature',
    description:
      "An operation run from a descriptor finished: its result as the SDKs return it ({operationId, result, ...}) as JSON, signed, to the account's notify_url",
  },
  'receiver.test': {
    channel: 'http',
    subject: 'receiver',
    signing: 'khipu-signature',
    description:
      'A test sent from the dashboard\'s Settings ("Send a test event"): {"event": "test", "receiver_id", "sent_at"} as JSON, signed, to the account\'s notify_url, attempted once',
  },
} as const satisfies Record<string, KindRule>;

export type MessageKind = keyof typeof MESSAGE_KINDS;
export const MESSAGE_KIND_NAMES = Object.keys(MESSAGE_KINDS) as MessageKind[];

function isMessageKind(value: string): value is MessageKind {
  return Object.hasOwn(MESSAGE_KINDS, value);
}

export function kindRule(kind: string): KindRule | undefined {
  return isMessageKind(kind) ? MESSAGE_KINDS[kind] : undefined;
}

/** The payment notification of each notification API version. */
export const PAYMENT_NOTIFICATION_KIND = {
  '1.3': 'payment.notification.1.3',
  '3.0': 'payment.notification.3.0',
} as const satisfies Record<string, MessageKind>;
export const PAYMENT_NOTIFICATION_KINDS: readonly MessageKind[] = Object.values(PAYMENT_NOTIFICATION_KIND);

/** The emails that ask a payer to pay: withdrawn unsent once the payment can no longer be paid (domain/payment-messages.ts). */
export const PAYER_EMAIL_KINDS = ['payment.email.collection', 'payment.email.reminder'] as const satisfies readonly MessageKind[];
export type PayerEmailKind = (typeof PAYER_EMAIL_KINDS)[number];

/** Every kind sent by email: the emails API and `quipu emails` list these. */
export const EMAIL_KINDS: readonly MessageKind[] = MESSAGE_KIND_NAMES.filter((kind) => MESSAGE_KINDS[kind].channel === 'email');

/** A message to write: the outbox fills in its id, schedule and delivery state. */
export interface MessageDraft {
  kind: MessageKind;
  receiverId: number;
  subjectId: string;
  /** An http(s) URL, or `mailto:<address>` for an email. */
  url: string;
  contentType: string;
  /** The exact bytes sent on every attempt. */
  body: string;
  /** When the first attempt is due (developer clock); now when absent. */
  dueAt?: number;
  /** Not sent from this instant on (developer clock): the worker withdraws it instead (status `cancelled`). Absent: sent however late. */
  validUntil?: number;
}
