// The payments pages: thin handlers around the use cases the API and the CLI call. An action
// follows post-redirect-get, refused or not: one the payment's state or the contract forbids changes
// nothing (each use case runs in one transaction) and comes back to the payment's page, which says
// why in its language (refusals.ts). Deleting and refunding are confirmed on a page of their own first.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { confirmPayment } from '../../app/confirm-payment.js';
import { deletePayment } from '../../app/delete-payment.js';
import { markPaid } from '../../app/mark-paid.js';
import { getPaymentHistory } from '../../app/payment-history.js';
import { getPayment } from '../../app/payment-queries.js';
import { type DemoBankOutcome, payWithDemoBank } from '../../app/pay-with-demobank.js';
import { parseRefundAmount, refundPayment } from '../../app/refund-payment.js';
import { settleTransfer } from '../../app/settle-transfer.js';
import { DomainError, notFound, validationError } from '../../domain/errors.js';
import { planRefund } from '../../domain/refund.js';
import { PAYMENT_ID_PATTERN } from '../../domain/ids.js';
import type { Merchant } from '../../domain/merchant.js';
import { unreadMoneyRequest } from '../../domain/unread-members.js';
import type { AppContext } from '../../app/context.js';
import { formatMoney } from '../../render/format.js';
import { html } from '../../render/html.js';
import { confirmationContent } from './confirm.js';
import { idCode } from './ids.js';
import { frameOf, may, sendPage, sessionOf } from './layout.js';
import {
  allowedActions,
  CONFIRMED_ACTIONS,
  PAYMENT_ACTIONS_AUDITED,
  PAYMENT_ACTIONS_NEED,
  type PaymentAction,
  paymentPage,
  paymentPath,
  PAYMENTS_PATH,
} from './payment-page.js';
import { paymentListRoutes } from './payment-list.js';
import { paymentsCsvRoutes } from './payments-csv.js';
import { isRefusal, markRefused, refusalCode, refusalText } from './refusals.js';

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

export function paymentIdOf(request: FastifyRequest<{ Params: Params }>): string {
  if (!PAYMENT_ID_PATTERN.test(request.params.id)) throw notFound('Payment');
  return request.params.id;
}

type PageQuery = { done?: string; refused?: string; amount?: string };

/** What the page says on top: a refusal (with the field it marks and the amount to show again), or what was done. */
interface Notice {
  refusal?: string;
  invalidField?: string;
  amount?: string;
  done?: string;
}

/** An amount typed is shown again after a refusal; one longer than an amount can be is not. */
const shownAmount = (amount: string | undefined) => (amount !== undefined && amount.length <= 32 ? amount : undefined);

async function showPayment(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, notice: Notice) {
  const id = paymentIdOf(request);
  const { merchant } = sessionOf(request);
  const frame = frameOf(request, reply, paymentPath(id));
  const history = await getPaymentHistory(request.ctx, merchant, id);
  const now = request.ctx.clock.now();
  const actions = allowedActions(history, merchant, request.ctx.config.sandbox, now).filter((action) => may(frame, PAYMENT_ACTIONS_NEED[action]));
  const { w } = frame;
  const done = notice.done && Object.hasOwn(w.payments.done, notice.done) ? w.payments.done[notice.done] : undefined;
  const shown = notice.refusal
    ? html`<p class="error" role="alert" id="notice">${w.payments.refused} ${notice.refusal}</p>`
    : done && html`<p class="notice" role="status" id="notice">${done}</p>`;
  return sendPage(
    reply,
    frame,
    status,
    `${w.payments.payment} ${history.payment.subject}`,
    paymentPage(frame, history, merchant, {
      baseUrl: request.ctx.config.publicBaseUrl,
      now,
      actions,
      notice: shown || undefined,
      refundAmount: notice.refusal ? shownAmount(notice.amount) : undefined,
      invalidField: notice.refusal ? notice.invalidField : undefined,
    }),
  );
}

/** The confirmation page of a destructive action, or back to the payment's page when its state no longer allows it. */
async function confirmAction(request: FastifyRequest<{ Params: Params; Querystring: { amount?: string } }>, reply: FastifyReply, name: PaymentAction) {
  const id = paymentIdOf(request);
  const { merchant } = sessionOf(request);
  const frame = frameOf(request, reply, `${paymentPath(id)}/${name}`);
  const history = await getPaymentHistory(request.ctx, merchant, id);
  const { payment } = history;
  const now = request.ctx.clock.now();
  if (!allowedActions(history, merchant, request.ctx.config.sandbox, now).includes(name) || !may(frame, PAYMENT_ACTIONS_NEED[name])) {
    markRefused(request);
    return reply.redirect(`${paymentPath(id)}?refused=state`, 303);
  }
  const p = frame.w.payments;
  const what = html`<dl><dt>${frame.m.subject}</dt><dd>${payment.subject}</dd><dt>${frame.m.amount}</dt><dd>${formatMoney(payment.amount, payment.currency, frame.m)}</dd>
<dt>ID</dt><dd>${idCode(payment.paymentId)}</dd></dl>`;
  if (name === 'delete') {
    return sendPage(
      reply,
      frame,
      200,
      p.deleteQuestion,
      confirmationContent(frame, {
        details: html`<p>${p.deleteDetails}</p>${what}`,
        action: `${paymentPath(id)}/delete`,
        button: p.delete,
        back: paymentPath(id),
      }),
    );
  }
  const text = request.query.amount?.trim() ?? '';
  let units: number;
  try {
    const requested = text === '' ? undefined : parseRefundAmount(text, payment.currency);
    const plan = planRefund(payment, requested, merchant.features.refunds, now);
    if (plan instanceof DomainError) throw plan;
    units = plan.amount;
  } catch (error) {
    if (!isRefusal(error)) throw error;
    markRefused(request);
    const amount = shownAmount(text);
    return reply.redirect(`${paymentPath(id)}?${new URLSearchParams({ refused: refusalCode(error), ...(amount ? { amount } : {}) })}`, 303);
  }
  const refund = formatMoney(units, payment.currency, frame.m);
  return sendPage(
    reply,
    frame,
    200,
    p.refundQuestion(refund),
    confirmationContent(frame, {
      details: html`<p>${p.refundDetails}</p>${what}`,
      action: `${paymentPath(id)}/refund`,
      button: p.refundButton(refund),
      back: paymentPath(id),
      fields: html`<input type="hidden" name="amount" value="${text}">`,
    }),
  );
}

/** DemoBank's actions exist only on a sandbox installation: elsewhere their routes are not found. */
export function paymentRoutes(app: FastifyInstance, sandbox: boolean): void {
  paymentListRoutes(app);
  paymentsCsvRoutes(app);

  app.get<{ Params: Params; Querystring: PageQuery }>(paymentPath(':id'), async (request, reply) => {
    const { done, refused, amount } = request.query;
    const { w } = frameOf(request, reply, '');
    const refusal = refusalText(w, refused, w.refusals.fields);
    return showPayment(request, reply, 200, { done, refusal, invalidField: refused, amount });
  });

  for (const name of CONFIRMED_ACTIONS) {
    app.get<{ Params: Params; Querystring: { amount?: string } }>(`${paymentPath(':id')}/${name}`, async (request, reply) =>
      confirmAction(request, reply, name),
    );
  }

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
          if (!isRefusal(error)) throw error;
          // A bad field of the form: the page again with it marked, as forms answer (400, the amount typed kept).
          if (error.kind === 'validation') {
            const { w } = frameOf(request, reply, '');
            const refusal = error.fields.map((f) => w.refusals.fields[f.field] ?? `${w.badRequest} (${f.field})`).join(' ');
            return showPayment(request, reply, 400, { refusal, invalidField: error.fields[0]?.field, amount: request.body?.amount });
          }
          // A state, contract or bank refusal: back to the payment's page, which says why in its language;
          // the audit log records the refusal.
          markRefused(request);
          return reply.redirect(`${paymentPath(id)}?refused=${refusalCode(error)}`, 303);
        }
        return reply.redirect(name === 'delete' ? `${PAYMENTS_PATH}?done=delete` : `${paymentPath(id)}?done=${name}`, 303);
      },
    );
  }
}
