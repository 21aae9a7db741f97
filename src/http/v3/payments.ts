// Instant payment API v3: create, read, delete, confirm and refund payments.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { confirmPayment } from '../../app/confirm-payment.js';
import { createPayment } from '../../app/create-payment.js';
import { deletePayment } from '../../app/delete-payment.js';
import { getPayment } from '../../app/payment-queries.js';
import { refundPayment } from '../../app/refund-payment.js';
import type { FieldError } from '../../domain/errors.js';
import type { RawValue } from '../../domain/field-rules.js';
import { paymentUrls } from '../../domain/payment.js';
import { PAYMENT_REQUEST_FIELDS } from '../../domain/payment-request.js';
import { schemaFromFields } from '../field-schema.js';
import { OPTIONAL_BODY } from '../openapi-optional-body.js';
import { schemaFindings } from '../validation.js';
import { warnAbout } from '../warnings.js';
import { confirmedMessage, DELETED_MESSAGE, refundMessage } from '../payment-messages.js';
import { paymentResource } from '../payment-resource.js';
import { representationCache } from '../representation-cache.js';
import { PAYMENT_EXAMPLE, REFUND_EXAMPLE } from '../request-examples.js';
import { Message, NoFields, PaymentCreated, PaymentIdParams, PaymentV3, v3Responses } from '../schemas.js';

const CreatePaymentBody = schemaFromFields(PAYMENT_REQUEST_FIELDS.v3, 'json', PAYMENT_EXAMPLE);
const RefundBody = Type.Optional(
  Type.Object(
    { amount: Type.Optional(Type.Number({ format: 'double', description: 'Amount to refund; the whole remaining amount if omitted (null is refused)' })) },
    { examples: [REFUND_EXAMPLE] },
  ),
);
const tags = ['Payments'];
const sendPayment = representationCache(paymentResource);

export const v3PaymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v3/payments',
    {
      schema: { tags, summary: 'Create payment', body: CreatePaymentBody, response: v3Responses(PaymentCreated, { body: true, idempotent: true }) },
      attachValidation: true,
      config: { idempotent: true, ignoreUnknownFields: true },
    },
    async (request, reply) => {
      const doubts: FieldError[] = [];
      const payment = await createPayment(request.ctx, request.merchant!, 'v3', request.body as Record<string, RawValue>, schemaFindings(request), doubts);
      warnAbout(request, reply, doubts);
      return paymentUrls(request.ctx.config.publicBaseUrl, payment);
    },
  );

  app.get(
    '/v3/payments/:id',
    { schema: { tags, summary: 'Get payment', params: PaymentIdParams, response: v3Responses(PaymentV3, { id: true }) } },
    async (request, reply) => {
      const payment = await getPayment(request.ctx, request.merchant!, request.params.id);
      return sendPayment(reply, request.ctx.config.publicBaseUrl, payment, request.merchant!);
    },
  );

  app.delete(
    '/v3/payments/:id',
    {
      schema: { tags, summary: 'Delete pending payment', params: PaymentIdParams, response: v3Responses(Message, { id: true }) },
      config: { auditAction: 'payment.delete' },
    },
    async (request) => {
      await deletePayment(request.ctx, request.merchant!, request.params.id);
      return { message: DELETED_MESSAGE };
    },
  );

  app.post(
    '/v3/payments/:id/confirm',
    {
      schema: {
        tags,
        summary: 'Confirm payment',
        params: PaymentIdParams,
        body: NoFields,
        [OPTIONAL_BODY]: true,
        response: v3Responses(Message, { feature: true, id: true, body: true, idempotent: true }),
      },
      config: { auditAction: 'payment.confirm', idempotent: true, ignoreUnknownFields: true },
    },
    async (request) => {
      const delivery = await confirmPayment(request.ctx, request.merchant!, request.params.id);
      return { message: confirmedMessage(delivery) };
    },
  );

  app.post(
    '/v3/payments/:id/refunds',
    {
      schema: {
        tags,
        summary: 'Refund payment',
        params: PaymentIdParams,
        body: RefundBody,
        [OPTIONAL_BODY]: true,
        response: v3Responses(Message, { feature: true, id: true, body: true, idempotent: true }),
      },
      config: {
        auditAction: 'payment.refund',
        idempotent: true,
        keepEmptyFields: true,
        ignoreUnknownFields: true,
        moneyMembers: ['amount'],
        echoedParams: { payment_id: 'id' },
      },
    },
    async (request) => {
      const refund = await refundPayment(request.ctx, request.merchant!, request.params.id, request.body?.amount);
      return { message: refundMessage(refund) };
    },
  );
};
