// Automatic payment API v1: subscriptions (status read under both the current and the older path)
// and charge intents. Registered in the v3 scope: same host, same authentication, error shape and
// body rules (v3/index.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createCharge } from '../../app/create-charge.js';
import { createSubscription } from '../../app/create-subscription.js';
import { getSubscription } from '../../app/subscription-queries.js';
import type { FieldError } from '../../domain/errors.js';
import type { RawValue } from '../../domain/field-rules.js';
import { subscriptionRedirectUrl } from '../../domain/subscription.js';
import { CHARGE_INTENT_FIELDS, SUBSCRIPTION_REQUEST_FIELDS } from '../../domain/subscription-request.js';
import { schemaFromFields } from '../field-schema.js';
import { CHARGE_INTENT_EXAMPLE, SUBSCRIPTION_EXAMPLE } from '../request-examples.js';
import { v3Responses } from '../schemas.js';
import { schemaFindings } from '../validation.js';
import { warnAbout } from '../warnings.js';
import { ChargeIntentCreated, SubscriptionCreated, SubscriptionStatus, subscriptionStatus } from './subscription-resource.js';

const tags = ['Automatic payments'];
const IdParams = Type.Object({ id: Type.String({ maxLength: 255, description: 'Subscription identifier' }) });
const StatusQuery = Type.Object({ subscription_id: Type.String({ maxLength: 255, description: 'Subscription identifier' }) });

export const automaticPaymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/automatic-payment/subscription',
    {
      schema: {
        tags,
        summary: 'Create subscription',
        body: schemaFromFields(SUBSCRIPTION_REQUEST_FIELDS, 'json', SUBSCRIPTION_EXAMPLE),
        response: v3Responses(SubscriptionCreated, { body: true, idempotent: true }),
      },
      attachValidation: true,
      config: { idempotent: true, ignoreUnknownFields: true },
    },
    async (request, reply) => {
      const doubts: FieldError[] = [];
      const subscription = await createSubscription(request.ctx, request.merchant!, request.body as Record<string, RawValue>, schemaFindings(request), doubts);
      warnAbout(request, reply, doubts);
      return {
        subscription_id: subscription.subscriptionId,
        redirect_url: subscriptionRedirectUrl(request.ctx.config.publicBaseUrl, subscription.subscriptionId),
      };
    },
  );

  app.get(
    '/v1/automatic-payment/subscription/:id',
    { schema: { tags, summary: 'Get subscription status', params: IdParams, response: v3Responses(SubscriptionStatus, { id: true }) } },
    async (request) => subscriptionStatus(await getSubscription(request.ctx, request.merchant!, request.params.id)),
  );

  app.get(
    '/v1/automatic-payment/subscription-status',
    { schema: { tags, summary: 'Get subscription status (older path)', querystring: StatusQuery, response: v3Responses(SubscriptionStatus, { id: true }) } },
    async (request) => subscriptionStatus(await getSubscription(request.ctx, request.merchant!, request.query.subscription_id)),
  );

  app.post(
    '/v1/automatic-payment/charge-intent',
    {
      schema: {
        tags,
        summary: 'Create charge intent',
        body: schemaFromFields(CHARGE_INTENT_FIELDS, 'json', CHARGE_INTENT_EXAMPLE),
        response: v3Responses(ChargeIntentCreated, { body: true, idempotent: true }),
      },
      attachValidation: true,
      config: { auditAction: 'charge.create', idempotent: true, ignoreUnknownFields: true, moneyMembers: ['subscription_id', 'amount'] },
    },
    async (request, reply) => {
      // Values accepted that are likely mistakes (custom sent empty) are named, as for subscriptions.
      const doubts: FieldError[] = [];
      const payment = await createCharge(request.ctx, request.merchant!, request.body as Record<string, RawValue>, schemaFindings(request), doubts);
      warnAbout(request, reply, doubts);
      return { payment_id: payment.paymentId };
    },
  );
};
