// Endpoints a merchant's credentials open, beside the payer's cycle: marking a payment paid (a
// Quipu extension under /quipu/v1) and, for developer-mode accounts, telling DemoBank to confirm
// or fail a transfer it left uncertain (/sandbox/demobank).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { markPaid } from '../../app/mark-paid.js';
import { settleTransfer } from '../../app/settle-transfer.js';
import { DomainError } from '../../domain/errors.js';
import type { Payment } from '../../domain/payment.js';
import { PAYMENT_STATUSES, STATUS_DETAILS } from '../../domain/payment-status.js';
import { Message, PaymentIdParams } from '../schemas.js';

/** What a DemoBank decision about a payment answers (sandbox/demobank-decisions.ts too). */
export const PaymentState = Type.Object({
  payment_id: Type.String(),
  status: Type.String({ enum: [...PAYMENT_STATUSES] }),
  status_detail: Type.String({ enum: [...STATUS_DETAILS] }),
});

export const paymentState = (payment: Payment) => ({ payment_id: payment.paymentId, status: payment.status, status_detail: payment.statusDetail });

export const markPaidRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/quipu/v1/payments/:id/mark-paid',
    {
      schema: {
        tags: ['Quipu: payments'],
        summary: 'Mark a payment as paid by other means (marked-paid-by-receiver)',
        params: PaymentIdParams,
        response: { 200: Message },
      },
      config: { auditAction: 'payment.mark-paid', idempotent: true },
    },
    async (request) => {
      await markPaid(request.ctx, request.merchant!, request.params.id);
      return { message: 'Payment marked as paid by the receiver' };
    },
  );
};

export const demoBankSandboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('preHandler', async (request) => {
    if (!request.merchant!.developer) throw new DomainError('forbidden', 'The sandbox is only for developer-mode accounts');
  });
  const Outcome = Type.Object({ outcome: Type.String({ enum: ['confirm', 'fail'] }) });
  app.post(
    '/sandbox/demobank/payments/:id/:outcome',
    {
      schema: {
        tags: ['Quipu: sandbox'],
        summary: 'DemoBank settles the uncertain transfer of a payment: confirm (the payment is reconciled) or fail (pending again)',
        params: Type.Composite([PaymentIdParams, Outcome]),
        response: { 200: PaymentState },
      },
      config: { auditAction: 'demobank.decide' },
    },
    async (request) => {
      return paymentState(await settleTransfer(request.ctx, request.merchant!, request.params.id, request.params.outcome as 'confirm' | 'fail'));
    },
  );
};
