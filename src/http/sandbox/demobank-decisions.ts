// DemoBank's decisions about automatic payments, for a developer's scripts and tests: settle or
// fail a charge's debit, approve or reject a mandate waiting for the bank, revoke one as its payer
// would. Each is applied at once (app/demobank-decisions.ts), so the answer is the charge's or the
// subscription's state afterwards. Only the account's own charges and subscriptions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { decideDemoCharge, decideDemoMandate, type ChargeDecision, type MandateDecision } from '../../app/demobank-decisions.js';
import { PaymentState, paymentState } from '../operator/merchant-routes.js';
import { PaymentIdParams } from '../schemas.js';
import { SubscriptionStatus, subscriptionStatus } from '../v1/subscription-resource.js';

const tags = ['Quipu: sandbox'];
const CHARGE_DECISIONS: readonly ChargeDecision[] = ['settle', 'fail'];
const MANDATE_DECISIONS: readonly MandateDecision[] = ['approve', 'reject', 'revoke'];
const SubscriptionIdParams = Type.Object({ id: Type.String({ maxLength: 255, description: 'Subscription identifier' }) });

export const demoBankDecisionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/sandbox/demobank/charges/:id/:decision',
    {
      schema: {
        tags,
        summary: "DemoBank settles a charge's debit now (the payment is reconciled and notified) or fails it (error_response_url is told)",
        params: Type.Composite([PaymentIdParams, Type.Object({ decision: Type.String({ enum: [...CHARGE_DECISIONS] }) })]),
        response: { 200: PaymentState },
      },
      config: { auditAction: 'demobank.decide' },
    },
    async (request) => paymentState(await decideDemoCharge(request.ctx, request.params.id, request.params.decision as ChargeDecision, request.merchant!)),
  );

  app.post(
    '/sandbox/demobank/subscriptions/:id/:decision',
    {
      schema: {
        tags,
        summary: "DemoBank approves or rejects a mandate waiting for its approval, or revokes one as its payer would; the subscription's notify_url is told",
        params: Type.Composite([SubscriptionIdParams, Type.Object({ decision: Type.String({ enum: [...MANDATE_DECISIONS] }) })]),
        response: { 200: SubscriptionStatus },
      },
      config: { auditAction: 'demobank.decide' },
    },
    async (request) =>
      subscriptionStatus(await decideDemoMandate(request.ctx, request.params.id, request.params.decision as MandateDecision, request.merchant!)),
  );
};
