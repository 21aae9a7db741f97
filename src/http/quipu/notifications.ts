// The account's payment notifications: list them, read one with every attempt, send one again.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getMessage, listMessages } from '../../app/message-queries.js';
import { resendMessage } from '../../app/resend-message.js';
import { notificationDetailView, notificationView } from '../../delivery/notification-view.js';
import { PAYMENT_NOTIFICATION_KINDS } from '../../domain/message-kinds.js';
import { NOTIFICATION_STATUSES } from '../../store/messages.js';
import { attemptProperties, deliveryStateProperties, idParams, nullable } from './message-schemas.js';

const Notification = Type.Object({
  notification_id: Type.String({ description: 'Stays the same on every attempt' }),
  payment_id: Type.String(),
  receiver_id: Type.Integer(),
  api_version: Type.String({ description: 'Notification API version: 1.3 or 3.0' }),
  url: Type.String({ description: 'Where it is sent' }),
  ...deliveryStateProperties(
    NOTIFICATION_STATUSES,
    'pending (more attempts to come), delivered (a receiver answered 200) or exhausted',
    'When a receiver answered 200',
  ),
});

const Attempt = Type.Object({
  ...attemptProperties,
  http_status: nullable(Type.Integer()),
  error: nullable(Type.String(), 'Why the attempt failed: HTTP status, timeout, connection error or a refused address'),
  response_excerpt: nullable(Type.String(), 'The beginning of the answer'),
});

const NotificationDetail = Type.Object({
  ...Notification.properties,
  content_type: Type.String(),
  body: Type.String({ description: 'The exact bytes sent on every attempt' }),
  attempt_log: Type.Array(Attempt),
});

const ListQuery = Type.Object(
  {
    payment_id: Type.Optional(Type.String({ maxLength: 255 })),
    status: Type.Optional(Type.String({ enum: [...NOTIFICATION_STATUSES] })),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    offset: Type.Integer({ minimum: 0, default: 0 }),
  },
  { additionalProperties: false },
);

/** One account's payment notifications. */
const ofAccount = (receiverId: number) => ({ receiverId, kinds: PAYMENT_NOTIFICATION_KINDS, noun: 'Notification' });

const IdParams = idParams('Notification identifier');
const tags = ['Quipu: notifications'];

export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/quipu/v1/notifications',
    {
      schema: {
        tags,
        summary: 'List notifications, newest first',
        querystring: ListQuery,
        response: { 200: Type.Object({ notifications: Type.Array(Notification), has_more: Type.Boolean() }) },
      },
    },
    async (request) => {
      const { payment_id, status, limit, offset } = request.query;
      const rows = await listMessages(request.ctx, {
        receiverId: request.merchant!.receiverId,
        kinds: PAYMENT_NOTIFICATION_KINDS,
        subjectId: payment_id,
        status: status as (typeof NOTIFICATION_STATUSES)[number] | undefined,
        limit: limit + 1,
        offset,
      });
      return { notifications: rows.slice(0, limit).map(notificationView), has_more: rows.length > limit };
    },
  );

  app.get(
    '/quipu/v1/notifications/:id',
    { schema: { tags, summary: 'Get a notification and its attempts', params: IdParams, response: { 200: NotificationDetail } } },
    async (request) => {
      const { message, attempts } = await getMessage(request.ctx, request.params.id, ofAccount(request.merchant!.receiverId));
      return notificationDetailView(message, attempts);
    },
  );

  app.post(
    '/quipu/v1/notifications/:id/resend',
    { schema: { tags, summary: 'Send a notification again now (same body and ids)', params: IdParams, response: { 200: Notification } } },
    async (request) => notificationView(await resendMessage(request.ctx, request.params.id, ofAccount(request.merchant!.receiverId))),
  );
};
