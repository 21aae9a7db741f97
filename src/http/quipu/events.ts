// Everything Quipu sends for the account, of every kind (domain/message-kinds.ts): list it a page at
// a time, read one event with the exact headers of each attempt, send one again.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getEvent } from '../../app/event-queries.js';
import { pageOfMessages } from '../../app/message-queries.js';
import { resendMessage } from '../../app/resend-message.js';
import { eventDetailView, eventView } from '../../delivery/event-view.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/message-page.js';
import { MESSAGE_KIND_NAMES } from '../../domain/message-kinds.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../../store/messages.js';
import { attemptProperties, deliveryStateProperties, idParams, nullable } from './message-schemas.js';

const Headers = (description: string) => nullable(Type.Record(Type.String(), Type.String()), description);

const Event = Type.Object({
  id: Type.String({ description: 'Stays the same on every attempt' }),
  kind: Type.String({ description: `What it is: ${MESSAGE_KIND_NAMES.join(', ')}` }),
  subject_type: Type.String({ description: 'What subject_id names: payment, ...' }),
  subject_id: Type.String(),
  receiver_id: Type.Integer(),
  destination: Type.String({ description: 'The URL it is posted to, or for emails the address' }),
  ...deliveryStateProperties(
    MESSAGE_STATUSES,
    'Where its delivery stands; pending: more attempts are to come; cancelled: withdrawn unsent',
    'When it was delivered',
  ),
});

const Attempt = Type.Object({
  ...attemptProperties,
  status_code: nullable(Type.Integer(), "The receiver's HTTP status, or the mail server's reply code"),
  error: nullable(Type.String(), 'Why the attempt failed'),
  response_excerpt: nullable(Type.String(), 'The beginning of the answer'),
  headers: Headers('The HTTP headers this attempt was sent with, signature included; null for kinds not sent over HTTP'),
  sent_to: Type.String({
    description: "Where this attempt went: the event's destination, or another URL it was sent to once (the dashboard's Resend to another URL)",
  }),
});

const EventDetail = Type.Object({
  ...Event.properties,
  content_type: Type.String(),
  body: Type.String({ description: 'The exact bytes sent on every attempt' }),
  headers: Headers(
    'The HTTP headers every attempt is sent with; signed kinds add their signature to each (attempt_log[].headers); null for kinds not sent over HTTP',
  ),
  attempt_log: Type.Array(Attempt),
});

const ListQuery = Type.Object(
  {
    kind: Type.Optional(Type.String({ enum: [...MESSAGE_KIND_NAMES] })),
    subject_id: Type.Optional(Type.String({ maxLength: 255, description: 'Only events about this payment, ...' })),
    status: Type.Optional(Type.String({ enum: [...MESSAGE_STATUSES] })),
    limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
    cursor: Type.Optional(Type.String({ maxLength: 1024, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

const EventPage = Type.Object({
  events: Type.Array(Event),
  has_more: Type.Boolean(),
  next_cursor: nullable(Type.String(), 'Where the next page starts (?cursor=); null on the last page'),
});

const IdParams = idParams('Event identifier');
const tags = ['Quipu: events'];

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/quipu/v1/events',
    { schema: { tags, summary: 'List everything sent for the account, newest first, a page at a time', querystring: ListQuery, response: { 200: EventPage } } },
    async (request) => {
      const { kind, subject_id, status, limit, cursor } = request.query;
      const page = await pageOfMessages(request.ctx, {
        receiverId: request.merchant!.receiverId,
        kinds: kind === undefined ? undefined : [kind],
        subjectId: subject_id,
        status: status as MessageStatus | undefined,
        cursor,
        limit,
      });
      return { events: page.messages.map(eventView), has_more: page.nextCursor !== null, next_cursor: page.nextCursor };
    },
  );

  app.get(
    '/quipu/v1/events/:id',
    {
      schema: {
        tags,
        summary: 'Get an event, its body, and every attempt with the headers it was sent with',
        params: IdParams,
        response: { 200: EventDetail },
      },
    },
    async (request) => {
      const { message, attempts, secret } = await getEvent(request.ctx, request.params.id, request.merchant!.receiverId);
      return eventDetailView(message, attempts, secret);
    },
  );

  app.post(
    '/quipu/v1/events/:id/resend',
    { schema: { tags, summary: 'Send an event again now (same body and ids), as a new round of delivery', params: IdParams, response: { 200: Event } } },
    async (request) => eventView(await resendMessage(request.ctx, request.params.id, { receiverId: request.merchant!.receiverId, noun: 'Event' })),
  );
};
