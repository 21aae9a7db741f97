// Reading messages and their attempts: an account sees its own (`receiverId`); the operator's CLI
// may look across accounts. The notifications, emails and events APIs each read their kinds.
import { notFound } from '../domain/errors.js';
import { pageOf, type PageRequest } from '../domain/message-page.js';
import { encodePageCursor } from '../domain/page-cursor.js';
import { listAttemptRows, listMessageRows, findMessageRow, type MessageFilter } from '../store/messages.js';
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import type { AppContext } from './context.js';

export async function listMessages(ctx: AppContext, filter: MessageFilter): Promise<MessageRow[]> {
  return listMessageRows(ctx.db, filter);
}

export interface MessagePage {
  messages: MessageRow[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

/** A page of messages, newest first, from the `cursor` the previous page ended with. */
export async function pageOfMessages(ctx: AppContext, request: PageRequest & Omit<MessageFilter, 'before' | 'limit' | 'offset'>): Promise<MessagePage> {
  const { cursor, limit, ...filter } = request;
  const page = pageOf({ cursor, limit });
  // One more than asked tells whether another page follows.
  const rows = await listMessageRows(ctx.db, { ...filter, before: page.before, limit: page.limit + 1 });
  const messages = rows.slice(0, page.limit);
  const last = messages.at(-1);
  return { messages, nextCursor: rows.length > page.limit && last ? encodePageCursor({ at: last.created_at, id: last.message_id }) : null };
}

/** More messages than one payment or operation is ever sent (its notification, emails, reminders, resends are rounds of the same). */
const MESSAGES_ABOUT_LIMIT = 100;

/** Every message sent about one payment or operation of the account, newest first, each with its attempts. */
export async function messagesAbout(
  ctx: AppContext,
  receiverId: number,
  subjectId: string,
  kinds?: readonly string[],
): Promise<{ message: MessageRow; attempts: MessageAttemptRow[] }[]> {
  const rows = await listMessageRows(ctx.db, { receiverId, subjectId, kinds, limit: MESSAGES_ABOUT_LIMIT });
  const messages = [];
  for (const message of rows) messages.push({ message, attempts: await listAttemptRows(ctx.db, message.message_id) });
  return messages;
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
