// Instant payment API v2: create (form body), read by id or by the token of a 1.3 notification,
// delete, confirm and refund. The same use cases as v3; only the wire format differs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { confirmPayment } from '../../app/confirm-payment.js';
import { createPayment } from '../../app/create-payment.js';
import { deletePayment } from '../../app/delete-payment.js';
import { getPayment, getPaymentByToken } from '../../app/payment-queries.js';
import { refundPayment } from '../../app/refund-payment.js';
import type { FieldError } from '../../domain/errors.js';
import type { RawValue } from '../../domain/field-rules.js';
import { MAX_AMOUNT_TEXT } from '../../domain/money.js';
import { paymentUrls } from '../../domain/payment.js';
import { PAYMENT_REQUEST_FIELDS } from '../../domain/payment-request.js';
import { schemaFromFields } from '../field-schema.js';
import { OPTIONAL_BODY } from '../openapi-optional-body.js';
import { schemaFindings } from '../validation.js';
import { warnAbout } from '../warnings.js';
import { confirmedMessage, DELETED_MESSAGE, refundMessage } from '../payment-messages.js';
import { legacyPaymentResource } from '../payment-resource.js';
import { representationCache } from '../representation-cache.js';
import { asForm, PAYMENT_EXAMPLE, REFUND_EXAMPLE } from '../request-examples.js';
import { Message, NoFields, PaymentCreated, PaymentIdParams, PaymentV2, v2Responses } from '../schemas.js';
import { FORM_ONLY, FORM_OR_JSON } from './form-body.js';
import type { V2RouteOptions } from './route-options.js';

const CreatePaymentBody = schemaFromFields(PAYMENT_REQUEST_FIELDS.v2, 'form', PAYMENT_EXAMPLE);
// The contract says JSON with an optional amount; the official clients send a form. Both are read:
// the amount as a JSON number or as decimal text.
const RefundBody = Type.Optional(
  Type.Object(
    {
      amount: Type.Optional(
        Type.Union([Type.Number({ format: 'double' }), Type.String({ maxLength: MAX_AMOUNT_TEXT })], {
          description: 'Amount to refund; the whole remaining amount if omitted',
          examples: [asForm(REFUND_EXAMPLE).amount],
        }),
      ),
    },
    { additionalProperties: false, examples: [asForm(REFUND_EXAMPLE)] },
  ),
);
const TokenQuery = Type.Object({
  notification_token: Type.String({ minLength: 1, maxLength: 255, description: 'Token received in a notification (API 1.3 or later)' }),
});

const sendPayment = representationCache(legacyPaymentResource);

export const v2PaymentRoutes: FastifyPluginAsyncTypebox<V2RouteOptions> = async (app, { alias }) => {
  const tags = ['v2'];

  app.post(
    '/payments',
    {
      schema: {
        hide: alias,
        tags,
        summary: 'Create payment (v2)',
        consumes: FORM_ONLY,
        body: CreatePaymentBody,
        response: v2Responses(PaymentCreated, { body: true, idempotent: true }),
      },
      attachValidation: true,
      config: { idempotent: true, formBody: true, ignoreUnknownFields: true },
    },
    async (request, reply) => {
      const doubts: FieldError[] = [];
      const payment = await createPayment(request.ctx, request.merchant!, 'v2', request.body as Record<string, RawValue>, schemaFindings(request), doubts);
      warnAbout(request, reply, doubts);
      return paymentUrls(request.ctx.config.publicBaseUrl, payment);
    },
  );

  app.get(
    '/payments',
    {
      schema: { hide: alias, tags, summary: 'Get payment by notification token (v2)', querystring: TokenQuery, response: v2Responses(PaymentV2, { id: true }) },
    },
    async (request, reply) => {
      const payment = await getPaymentByToken(request.ctx, request.merchant!, request.query.notification_token);
      return sendPayment(reply, request.ctx.config.publicBaseUrl, payment, request.merchant!);
    },
  );

  app.get(
    '/payments/:id',
    { schema: { hide: alias, tags, summary: 'Get payment (v2)', params: PaymentIdParams, response: v2Responses(PaymentV2, { id: true }) } },
    async (request, reply) => {
      const payment = await getPayment(request.ctx, request.merchant!, request.params.id);
      return sendPayment(reply, request.ctx.config.publicBaseUrl, payment, request.merchant!);
    },
  );

  // Delete and confirm take no fields. The clients send an empty form (or nothing); a field sent is
  // ignored and named, as on v3.
  app.delete(
    '/payments/:id',
    {
      schema: {
        hide: alias,
        tags,
        summary: 'Delete pending payment (v2)',
        params: PaymentIdParams,
        consumes: FORM_OR_JSON,
        body: NoFields,
        [OPTIONAL_BODY]: true,
        response: v2Responses(Message, { id: true, body: true }),
      },
      config: { auditAction: 'payment.delete', ignoreUnknownFields: true },
    },
    async (request) => {
      await deletePayment(request.ctx, request.merchant!, request.params.id);
      return { message: DELETED_MESSAGE };
    },
  );

  app.post(
    '/payments/:id/confirm',
    {
      schema: {
        hide: alias,
        tags,
        summary: 'Confirm payment (v2)',
        params: PaymentIdParams,
        consumes: FORM_OR_JSON,
        body: NoFields,
        [OPTIONAL_BODY]: true,
        response: v2Responses(Message, { feature: true, id: true, body: true, idempotent: true }),
      },
      config: { auditAction: 'payment.confirm', idempotent: true, ignoreUnknownFields: true },
    },
    async (request) => {
      const delivery = await confirmPayment(request.ctx, request.merchant!, request.params.id);
      return { message: confirmedMessage(delivery) };
    },
  );

  app.post(
    '/payments/:id/refunds',
    {
      schema: {
        hide: alias,
        tags,
        summary: 'Refund payment (v2)',
        params: PaymentIdParams,
        consumes: FORM_OR_JSON,
        body: RefundBody,
        [OPTIONAL_BODY]: true,
        response: v2Responses(Message, { feature: true, id: true, body: true, idempotent: true }),
      },
      config: { auditAction: 'payment.refund', idempotent: true, keepEmptyFields: true, ignoreUnknownFields: true, moneyMembers: ['amount'] },
    },
    async (request) => {
      const refund = await refundPayment(request.ctx, request.merchant!, request.params.id, request.body?.amount);
      return { message: refundMessage(refund) };
    },
  );
};
