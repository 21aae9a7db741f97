// One event (an outbox message, of any kind) with every attempt and the secret that signed them,
// so that each attempt's headers can be shown exactly. An account sees its own (`receiverId`); the
// operator's CLI may look across accounts.
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import type { AppContext } from './context.js';
import { getMessage } from './message-queries.js';

export interface EventDetail {
  message: MessageRow;
  attempts: MessageAttemptRow[];
  /** The account's receiver secret, which signs the attempts of signed kinds. */
  secret: string;
}

export async function getEvent(ctx: AppContext, messageId: string, receiverId?: number): Promise<EventDetail> {
  const { message, attempts } = await getMessage(ctx, messageId, { receiverId, noun: 'Event' });
  // messages.receiver_id references the account, which is never deleted.
  const account = (await ctx.merchants.byReceiverId(message.receiver_id))!;
  return { message, attempts, secret: account.secret };
}
