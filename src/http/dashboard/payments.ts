// The payments pages: thin handlers around the use cases the API and the CLI call. An action
// follows post-redirect-get; one the payment's state or the contract forbids renders the page again
// with the use case's reason and changes nothing (each use case runs in one transaction).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { confirmPayment } from '../../app/confirm-payment.js';
import { deletePayment } from '../../app/delete-payment.js';
import { markPaid } from '../../app/mark-paid.js';
import { getPaymentHistory } from '../../app/payment-history.js';
import { getPayment } from '../../app/payment-queries.js';
import { type DemoBankOutcome, payWithDemoBank } from '../../app/pay-with-demobank.js';
import { refundPayment } from '../../app/refund-payment.js';
import { settleTransfer } from '../../app/settle-transfer.js';
import { DomainError, notFound, validationError } from '../../domain/errors.js';
import { PAYMENT_ID_PATTERN } from '../../domain/ids.js';
import type { Merchant } from '../../domain/merchant.js';
import { unreadMoneyRequest } from '../../domain/unread-members.js';
import type { AppContext } from '../../app/context.js';
import { html } from '../../render/html.js';
import { frameOf, may, sendPage, sessionOf } from './layout.js';
import { allowedActions, PAYMENT_ACTIONS_AUDITED, PAYMENT_ACTIONS_NEED, type PaymentAction, paymentPage, paymentPath, PAYMENTS_PATH } from './payment-page.js';
import { paymentListRoutes } from './payment-list.js';

type Params = { id: string };

/** payWithDemoBank acts for the payer, on any payment: the dashboard's user only on their account's. */
async function payAtDemoBank(ctx: AppContext, merchant: Merchant, id: string, outcome: DemoBankOutcome) {
  await getPayment(ctx, merchant, id);
  return payWithDemoBank(ctx, id, outcome);
}

/** The refund form's fields: an empty amount asks plainly for all that is left. */
const REFUND_FORM = ['amount', '_csrf'];

/** A refund form the page did not send (no amount, something else instead) refunds nothing. */
function refundFromForm(ctx: AppContext, merchant: Merchant, id: string, form: Record<string, string | undefined>) {
  const unknown = Object.keys(form).filter((name) => !REFUND_FORM.includes(name));
  const refused = unreadMoneyRequest(unknown, form.amount === undefined ? ['amount'] : [], REFUND_FORM);
  if (refused.length > 0) throw validationError(refused);
  return refundPayment(ctx, merchant, id, form.amount?.trim() || undefined);
}

const ACTIONS: Record<PaymentAction, (ctx: AppContext, merchant: Merchant, id: string, form: Record<string, string | undefined>) => Promise<unknown>> = {
  refund: refundFromForm,
  confirm: (ctx, merchant, id) => confirmPayment(ctx, merchant, id),
  delete: (ctx, merchant, id) => deletePayment(ctx, merchant, id),
  'mark-paid': (ctx, merchant, id) => markPaid(ctx, merchant, id),
  'demobank-pay': (ctx, merchant, id) => payAtDemoBank(ctx, merchant, id, 'pay'),
  'demobank-pay-fail': (ctx, merchant, id) => payAtDemoBank(ctx, merchant, id, 'fail'),
  'demobank-pay-uncertain': (ctx, merchant, id) => payAtDemoBank(ctx, merchant, id, 'uncertain'),
  'demobank-confirm': (ctx, merchant, id) => settleTransfer(ctx, merchant, id, 'confirm'),
  'demobank-fail': (ctx, merchant, id) => settleTransfer(ctx, merchant, id, 'fail'),
};

/** Statuses of refusals: the use case's kind says why nothing was done. */
export const REFUSAL_STATUS: Partial<Record<DomainError['kind'], number>> = { validation: 400, forbidden: 403, state: 409, conflict: 409, unavailable: 503 };

export function paymentIdOf(request: FastifyRequest<{ Params: Params }>): string {
  if (!PAYMENT_ID_PATTERN.test(request.params.id)) throw notFound('Payment');
  return request.params.id;
}

async function showPayment(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, notice?: { text: string; refused: boolean }) {
  const id = paymentIdOf(request);
  const { merchant } = sessionOf(request);
  const frame = frameOf(request, reply, paymentPath(id));
  const history = await getPaymentHistory(request.ctx, merchant, id);
  const now = request.ctx.clock.now();
  const actions = allowedActions(history, merchant, request.ctx.config.sandbox, now).filter((action) => may(frame, PAYMENT_ACTIONS_NEED[action]));
  const shown =
    notice &&
    html`<p class="${notice.refused ? 'error' : 'notice'}" role="status" id="notice">${notice.refused ? `${frame.w.payments.refused} ` : ''}${notice.text}</p>`;
  return sendPage(
    reply,
    frame,
    status,
    `${frame.w.payments.payment} ${history.payment.subject}`,
    paymentPage(frame, history, merchant, { baseUrl: request.ctx.config.publicBaseUrl, now, actions, notice: shown }),
  );
}

/** DemoBank's actions exist only on a sandbox installation: elsewhere their routes are not found. */
export function paymentRoutes(app: FastifyInstance, sandbox: boolean): void {
  paymentListRoutes(app);

  app.get<{ Params: Params; Querystring: { done?: string } }>(paymentPath(':id'), async (request, reply) => {
    const done = request.query.done;
    const text = done ? frameOf(request, reply, '').w.payments.done[done] : undefined;
    return showPayment(request, reply, 200, text ? { text, refused: false } : undefined);
  });

  for (const name of Object.keys(ACTIONS) as PaymentAction[]) {
    if (!sandbox && PAYMENT_ACTIONS_NEED[name] === 'demobank.decide') continue;
    app.post<{ Params: Params; Body: Record<string, string | undefined> }>(
      `${paymentPath(':id')}/${name}`,
      { preHandler: app.csrfProtection, config: { dashboardAction: PAYMENT_ACTIONS_NEED[name], auditAction: PAYMENT_ACTIONS_AUDITED[name] } },
      async (request, reply) => {
        const id = paymentIdOf(request);
        try {
          await ACTIONS[name](request.ctx, sessionOf(request).merchant, id, request.body ?? {});
        } catch (error) {
          const status = error instanceof DomainError ? REFUSAL_STATUS[error.kind] : undefined;
          if (!status) throw error;
          const detail = (error as DomainError).fields.map((f) => ` ${f.field}: ${f.message}`).join('');
          return showPayment(request, reply, status, { text: `${(error as DomainError).message}${detail}`, refused: true });
        }
        return reply.redirect(name === 'delete' ? `${PAYMENTS_PATH}?done=delete` : `${paymentPath(id)}?done=${name}`, 303);
      },
    );
  }
}
