// Reading messages and their attempts: an account sees its own (`receiverId`); the operator's CLI
// may look across accounts. The notifications API reads the payment notification kinds only.
import { notFound } from '../domain/errors.js';
import { listAttemptRows, listMessageRows, findMessageRow, type MessageFilter } from '../store/messages.js';
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import type { AppContext } from './context.js';

export async function listMessages(ctx: AppContext, filter: MessageFilter): Promise<MessageRow[]> {
  return listMessageRows(ctx.db, filter);
}

/** `noun` names what was looked for in the 404 ('Notification', 'Event', ...). */
export async function getMessage(
  ctx: AppContext,
  messageId: string,
  options: { receiverId?: number; kinds?: readonly string[]; noun: string },
): Promise<{ message: MessageRow; attempts: MessageAttemptRow[] }> {
  const message = await findMessageRow(ctx.db, messageId, options.receiverId, options.kinds);
  if (!message) throw notFound(options.noun);
  return { message, attempts: await listAttemptRows(ctx.db, messageId) };
}
