// The callbacks of the automatic payment API, as its documentation and its users' code show them:
// JSON, signed like the 3.0 payment notification (message-kinds.ts). The signing notification's
// status is lower case, unlike the status read: merchants compare the exact text.
import type { Debit } from './debit.js';
import { debitErrorMessage } from './debit.js';
import type { DebitEvent } from './debit-status.js';
import type { MessageDraft } from './message-kinds.js';
import type { Subscription } from './subscription.js';

const JSON_TYPE = 'application/json';

export function signingNotification(subscription: Subscription, status: 'enabled' | 'disabled'): MessageDraft {
  return {
    kind: 'subscription.signing',
    receiverId: subscription.receiverId,
    subjectId: subscription.subscriptionId,
    url: subscription.notifyUrl,
    contentType: JSON_TYPE,
    body: JSON.stringify({ subscription_id: subscription.subscriptionId, status }),
  };
}

export function chargeErrorNotification(debit: Debit, transactionId: string, bankMessage: string): MessageDraft {
  return {
    kind: 'payment.charge.error',
    receiverId: debit.receiverId,
    subjectId: debit.paymentId,
    url: debit.errorResponseUrl,
    contentType: JSON_TYPE,
    body: JSON.stringify({ subscription_id: debit.subscriptionId, transaction_id: transactionId, error_message: debitErrorMessage(bankMessage) }),
  };
}

/** What a debit's move sends: a failed debit is told to the merchant's error_response_url, with the charge's transaction_id. */
export const DEBIT_EVENT_MESSAGES: Partial<Record<DebitEvent, (debit: Debit, transactionId: string) => MessageDraft>> = {
  failed: (debit, transactionId) => chargeErrorNotification(debit, transactionId, debit.failure ?? ''),
};
