// The emails Quipu wrote to the account's payers (collection requests, reminders, payment
// confirmations), sent through the mail server or kept in the local inbox alike: list them a page
// at a time, read one with every attempt.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getMessage, pageOfMessages } from '../../app/message-queries.js';
import { emailDetailView, emailView } from '../../delivery/email-view.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/message-page.js';
import { EMAIL_KINDS } from '../../domain/message-kinds.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../../store/messages.js';
import { attemptProperties, deliveryStateProperties, idParams, nullable } from './message-schemas.js';

const Email = Type.Object({
  id: Type.String({ description: 'Stays the same on every attempt; the Message-ID header is derived from it' }),
  kind: Type.String({ enum: [...EMAIL_KINDS] }),
  payment_id: Type.String(),
  receiver_id: Type.Integer(),
  from: Type.String(),
  to: Type.String({ description: "The payer's address" }),
  to_name: nullable(Type.String(), "The payer's name"),
  subject: Type.String(),
  text: Type.String({ description: 'The plain-text part' }),
  html: Type.String({ description: 'The HTML part' }),
  attachments: Type.Array(
    Type.Object({
      filename: Type.String(),
      content_type: Type.String(),
      content_base64: Type.String({ description: "The file's bytes, base64" }),
    }),
    { description: 'Files sent with the email (the receipt PDF of a payment confirmation); empty for the others' },
  ),
  ...deliveryStateProperties(
    MESSAGE_STATUSES,
    'pending (more attempts to come), delivered (the mail server took it, or it is kept in the local inbox), exhausted, or cancelled (withdrawn unsent: the payment was paid, declined or deleted, or it expired)',
    'When the mail server took it, or the inbox kept it',
  ),
});

const Attempt = Type.Object({
  ...attemptProperties,
  status_code: nullable(Type.Integer(), "The mail server's reply code"),
  error: nullable(Type.String(), 'Why the attempt failed: the SMTP reply (SMTP 550 ...), a timeout or a connection error'),
  response_excerpt: nullable(Type.String(), "The mail server's reply, or that the email was kept in the local inbox"),
});

const EmailDetail = Type.Object({ ...Email.properties, attempt_log: Type.Array(Attempt) });

const ListQuery = Type.Object(
  {
    payment_id: Type.Optional(Type.String({ maxLength: 255 })),
    status: Type.Optional(Type.String({ enum: [...MESSAGE_STATUSES] })),
    limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
    cursor: Type.Optional(Type.String({ maxLength: 1024, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

const EmailPage = Type.Object({
  emails: Type.Array(Email),
  has_more: Type.Boolean(),
  next_cursor: nullable(Type.String(), 'Where the next page starts (?cursor=); null on the last page'),
});

const IdParams = idParams('Email identifier');
const tags = ['Quipu: emails'];

export const emailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/quipu/v1/emails',
    {
      schema: {
        tags,
        summary: "List the emails written to the account's payers, newest first, a page at a time",
        querystring: ListQuery,
        response: { 200: EmailPage },
      },
    },
    async (request) => {
      const { payment_id, status, limit, cursor } = request.query;
      const page = await pageOfMessages(request.ctx, {
        receiverId: request.merchant!.receiverId,
        kinds: EMAIL_KINDS,
        subjectId: payment_id,
        status: status as MessageStatus | undefined,
        cursor,
        limit,
      });
      return { emails: page.messages.map(emailView), has_more: page.nextCursor !== null, next_cursor: page.nextCursor };
    },
  );

  app.get(
    '/quipu/v1/emails/:id',
    { schema: { tags, summary: 'Get an email and every attempt to send it', params: IdParams, response: { 200: EmailDetail } } },
    async (request) => {
      const { message, attempts } = await getMessage(request.ctx, request.params.id, {
        receiverId: request.merchant!.receiverId,
        kinds: EMAIL_KINDS,
        noun: 'Email',
      });
      return emailDetailView(message, attempts);
    },
  );
};
