// The payer's pages: thin handlers that read the payment, call a use case and render. Forms follow
// post-redirect-get; a fault (a stale form, a wrong RUT, a payment in another state, a double
// submit) renders a page saying so and changes nothing.
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorizeTransfer } from '../../app/authorize-transfer.js';
import { loginToBank } from '../../app/bank-login.js';
import { declinePayment, type Declination } from '../../app/decline-payment.js';
import { getPayerAttempt, getPayerPayment, type PayerAttempt, type PayerPayment } from '../../app/payer-payment.js';
import { startAttempt } from '../../app/start-attempt.js';
import { findBank } from '../../domain/banks.js';
import { payerCollectionAccount } from '../../domain/collection-account.js';
import { DomainError, notFound } from '../../domain/errors.js';
import type { Merchant } from '../../domain/merchant.js';
import { PAYMENT_ID_PATTERN, UUID_PATTERN } from '../../domain/ids.js';
import { allowsMethod, payerBanks, payerMethods } from '../../domain/payer-options.js';
import { isAttemptOpen, payerBlock } from '../../domain/payment-attempt.js';
import { hasReceipt, type ReceiptPayment, receiptFileName } from '../../domain/receipt.js';
import type { Html } from '../../render/html.js';
import { receiptPdf } from '../../render/receipt.js';
import { messages } from '../../render/words.js';
import { languageOf } from './i18n.js';
import { layout, type PageFrame } from './layout.js';
import { STYLESHEET_PATH } from '../html.js';
import {
  authorizePage,
  bankLoginPage,
  expiredAttemptContent,
  failedAttemptContent,
  type FormErrors,
  infoPage,
  manualPage,
  noConnectorPage,
  noticeContent,
  receiptContent,
  simplifiedPage,
  statusContent,
} from './pages.js';
import { allowFormTargets } from './security.js';

const STYLESHEET = fs.readFileSync(new URL('./payer.css', import.meta.url), 'utf8');

type Params = { id: string };
type ReceiptView = { payment: ReceiptPayment; merchant: Merchant };
type Form = Record<string, string | undefined>;

/** `cookiePath`: where the pages live, under which the language chosen is remembered. */
export function frameOf(request: FastifyRequest, reply: FastifyReply, selfPath: string, cookiePath?: string): PageFrame {
  const lang = languageOf(request, reply, cookiePath);
  return { lang, m: messages(lang), selfPath };
}

export function sendPage(
  reply: FastifyReply,
  frame: PageFrame,
  status: number,
  title: string,
  content: Html,
  formTargets: (string | null)[] = [],
): FastifyReply {
  allowFormTargets(reply, formTargets);
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(layout(frame, title, content));
}

function paymentId(request: FastifyRequest<{ Params: Params }>): string {
  if (!PAYMENT_ID_PATTERN.test(request.params.id)) throw notFound('Payment');
  return request.params.id;
}

function attemptId(request: FastifyRequest<{ Params: Params }>): string {
  if (!UUID_PATTERN.test(request.params.id)) throw notFound('Attempt');
  return request.params.id;
}

const kindOf = (error: unknown) => (error instanceof DomainError ? error.kind : undefined);
const fieldsOf = (error: DomainError) => new Set(error.fields.map((f) => f.field));

function sendStatus(reply: FastifyReply, frame: PageFrame, status: number, view: PayerPayment, now: Date, notice?: string): FastifyReply {
  const page = statusContent(frame.m, view, now, notice);
  return sendPage(reply, frame, status, page.title, page.body);
}

/** The payer pages cannot pay it: it is over, or its debit collects it from the payer's account. */
const closedToPayer = (view: PayerPayment, now: Date) => view.directDebit || payerBlock(view.payment, now) !== undefined;

/** What an attempt the payer can no longer act on shows: its outcome, or why it is over. */
function sendAttemptOutcome(reply: FastifyReply, frame: PageFrame, status: number, view: PayerAttempt, now: Date, notice?: string): FastifyReply {
  const { m } = frame;
  const { attempt, payment } = view;
  const payable = payerBlock(payment, now) === undefined;
  if (attempt.state === 'failed')
    return sendPage(reply, frame, status, m.failedTitle, failedAttemptContent(m, attempt, bankOf(view).bankName, payable, payment.cancelUrl, notice));
  if (attempt.state === 'authorizing')
    return sendPage(reply, frame, status, m.processingTitle, noticeContent(notice ? `${notice} ${m.processing}` : m.processing));
  if ((attempt.state === 'started' || attempt.state === 'authenticated') && payable && !isAttemptOpen(attempt, now)) {
    return sendPage(reply, frame, status, m.attemptExpiredTitle, expiredAttemptContent(m, attempt, payment.cancelUrl));
  }
  return sendStatus(reply, frame, status, view, now, notice);
}

function bankOf(view: PayerAttempt) {
  const bank = findBank(view.attempt.bankId, view.merchant.developer);
  return { bankName: bank?.name ?? view.attempt.bankId, bankMessage: bank?.message ?? '' };
}

export function payerRoutes(app: FastifyInstance): void {
  app.get(STYLESHEET_PATH, async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET));

  app.get<{ Params: Params }>('/payment/info/:id', async (request, reply) => {
    const id = paymentId(request);
    const frame = frameOf(request, reply, `/payment/info/${id}`);
    const view = await getPayerPayment(request.ctx, id);
    const now = request.ctx.clock.now();
    if (closedToPayer(view, now)) return sendStatus(reply, frame, 200, view, now);
    const page = infoPage({ ...view, m: frame.m, csrf: reply.generateCsrf() }, payerMethods(view.payment, view.merchant));
    return sendPage(reply, frame, 200, frame.m.title, page, [view.payment.cancelUrl]);
  });

  const decline = (declination: Declination) => async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const id = paymentId(request);
    const frame = frameOf(request, reply, `/payment/info/${id}`);
    try {
      const payment = await declinePayment(request.ctx, id, declination);
      return reply.redirect(payment.cancelUrl ?? `/payment/result/${id}`, 303);
    } catch (error) {
      if (kindOf(error) !== 'state') throw error;
      return sendStatus(reply, frame, 409, await getPayerPayment(request.ctx, id), request.ctx.clock.now());
    }
  };
  app.post<{ Params: Params }>('/payment/info/:id/decline', { preHandler: app.csrfProtection }, decline('rejected-by-payer'));
  app.post<{ Params: Params }>('/payment/info/:id/abuse', { preHandler: app.csrfProtection }, decline('marked-as-abuse'));

  const simplified = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, values: Form, errors: FormErrors) => {
    const id = paymentId(request);
    const frame = frameOf(request, reply, `/payment/simplified/${id}`);
    const view = await getPayerPayment(request.ctx, id);
    const now = request.ctx.clock.now();
    if (closedToPayer(view, now)) return sendStatus(reply, frame, status === 200 ? 200 : 409, view, now);
    if (!allowsMethod(view.payment, view.merchant, 'SIMPLIFIED_TRANSFER')) return sendStatus(reply, frame, 409, view, now, frame.m.methodNotAllowed);
    const page = simplifiedPage(
      { ...view, m: frame.m, csrf: reply.generateCsrf() },
      payerBanks(view.payment, view.merchant.developer),
      { bankId: values.bank_id, payerEmail: values.payer_email },
      errors,
    );
    return sendPage(reply, frame, status, frame.m.simplified, page);
  };
  app.get<{ Params: Params }>('/payment/simplified/:id', async (request, reply) => simplified(request, reply, 200, {}, {}));
  app.post<{ Params: Params; Body: Form }>('/payment/simplified/:id', { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body ?? {};
    try {
      const attempt = await startAttempt(request.ctx, paymentId(request), {
        bankId: body.bank_id,
        payerEmail: body.payer_email?.trim(),
        lang: languageOf(request, reply),
      });
      return reply.redirect(`/payment/bank/${attempt.attemptId}`, 303);
    } catch (error) {
      if (kindOf(error) === 'validation') {
        const fields = fieldsOf(error as DomainError);
        const m = frameOf(request, reply, '').m;
        return simplified(request, reply, 400, body, {
          bank_id: fields.has('bank_id') ? m.bankIdError : undefined,
          payer_email: fields.has('payer_email') ? (body.payer_email?.trim() ? m.emailError : m.emailMissing) : undefined,
        });
      }
      if (kindOf(error) === 'forbidden') {
        const id = paymentId(request);
        const frame = frameOf(request, reply, `/payment/simplified/${id}`);
        const view = await getPayerPayment(request.ctx, id);
        const bank = findBank(body.bank_id ?? '', view.merchant.developer);
        return sendPage(reply, frame, 403, frame.m.noConnectorTitle, noConnectorPage({ ...view, m: frame.m }, bank?.name ?? ''));
      }
      if (kindOf(error) === 'state') return simplified(request, reply, 409, body, {});
      throw error;
    }
  });

  app.get<{ Params: Params }>('/payment/manual/:id', async (request, reply) => {
    const id = paymentId(request);
    const frame = frameOf(request, reply, `/payment/manual/${id}`);
    const view = await getPayerPayment(request.ctx, id);
    const now = request.ctx.clock.now();
    if (closedToPayer(view, now)) return sendStatus(reply, frame, 200, view, now);
    if (!allowsMethod(view.payment, view.merchant, 'REGULAR_TRANSFER')) return sendStatus(reply, frame, 409, view, now, frame.m.methodNotAllowed);
    const account = payerCollectionAccount(request.ctx.config.collectionAccount, view.merchant.developer);
    if (!account) return sendStatus(reply, frame, 409, view, now, frame.m.manualUnavailable);
    return sendPage(
      reply,
      frame,
      200,
      frame.m.manual,
      manualPage({ ...view, m: frame.m }, account, findBank(account.bankId, view.merchant.developer)?.name ?? account.bankId),
    );
  });

  const bankLogin = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, values: Form, errors: FormErrors) => {
    const id = attemptId(request);
    const frame = frameOf(request, reply, `/payment/bank/${id}`);
    const view = await getPayerAttempt(request.ctx, id);
    const now = request.ctx.clock.now();
    const active = isAttemptOpen(view.attempt, now) && !payerBlock(view.payment, now);
    if (view.attempt.state === 'authenticated' && active) return reply.redirect(`/payment/bank/${id}/authorize`, 303);
    if (view.attempt.state !== 'started' || !active) return sendAttemptOutcome(reply, frame, status === 200 ? 200 : 409, view, now);
    const bank = bankOf(view);
    const page = bankLoginPage({ ...view, ...bank, m: frame.m, csrf: reply.generateCsrf() }, { rut: values.rut }, errors);
    return sendPage(reply, frame, status, frame.m.bankLogin(bank.bankName), page);
  };
  app.get<{ Params: Params }>('/payment/bank/:id', async (request, reply) => bankLogin(request, reply, 200, {}, {}));
  app.post<{ Params: Params; Body: Form }>('/payment/bank/:id/login', { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body ?? {};
    const id = attemptId(request);
    try {
      await loginToBank(request.ctx, id, { identifier: body.rut ?? '', password: body.password ?? '' });
      return reply.redirect(`/payment/bank/${id}/authorize`, 303);
    } catch (error) {
      const m = frameOf(request, reply, '').m;
      if (kindOf(error) === 'validation') {
        const fields = fieldsOf(error as DomainError);
        return bankLogin(request, reply, 400, body, {
          rut: fields.has('rut') ? m.rutError : undefined,
          password: fields.has('password') ? m.passwordError : undefined,
        });
      }
      if (kindOf(error) === 'forbidden') return bankLogin(request, reply, 403, body, { form: m.wrongPayer });
      if (kindOf(error) === 'unavailable') return bankLogin(request, reply, 503, body, { form: m.bankUnavailable });
      if (kindOf(error) === 'state') return bankLogin(request, reply, 409, body, {});
      throw error;
    }
  });

  const authorize = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, errors: FormErrors, notice?: string) => {
    const id = attemptId(request);
    const frame = frameOf(request, reply, `/payment/bank/${id}/authorize`);
    const view = await getPayerAttempt(request.ctx, id);
    const now = request.ctx.clock.now();
    if (view.attempt.state !== 'authenticated' || !isAttemptOpen(view.attempt, now) || payerBlock(view.payment, now)) {
      if (status === 200) return reply.redirect(`/payment/bank/${id}`, 303);
      const submitted = view.attempt.state !== 'started' && view.attempt.state !== 'authenticated';
      return sendAttemptOutcome(reply, frame, status, view, now, submitted ? notice : undefined);
    }
    const connector = request.ctx.banks.connectorFor(view.attempt.bankId)!;
    const page = authorizePage({ ...view, ...bankOf(view), m: frame.m, csrf: reply.generateCsrf() }, connector.challenge, errors);
    return sendPage(reply, frame, status, frame.m.authorizeTitle, page, [view.payment.returnUrl]);
  };
  app.get<{ Params: Params }>('/payment/bank/:id/authorize', async (request, reply) => authorize(request, reply, 200, {}));
  app.post<{ Params: Params; Body: Form }>('/payment/bank/:id/authorize', { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body ?? {};
    const id = attemptId(request);
    const answers = ['c1', 'c2', 'c3'].map((field) => (body[field] ?? '').trim());
    try {
      const outcome = await authorizeTransfer(request.ctx, id, answers);
      if (outcome.result === 'failed') return reply.redirect(`/payment/bank/${id}`, 303);
      return reply.redirect(outcome.payment.returnUrl ?? `/payment/result/${outcome.payment.paymentId}`, 303);
    } catch (error) {
      const m = frameOf(request, reply, '').m;
      if (kindOf(error) === 'validation') return authorize(request, reply, 400, { coordinates: m.coordinatesError });
      if (kindOf(error) === 'state') return authorize(request, reply, 409, {}, m.alreadySubmitted);
      // Another tab's transfer of the same payment is with its bank: this one must not reach a bank too.
      if (kindOf(error) === 'conflict')
        return sendPage(reply, frameOf(request, reply, `/payment/bank/${id}/authorize`), 409, m.processingTitle, noticeContent(m.otherTransferWaiting));
      throw error;
    }
  });

  app.get<{ Params: Params }>('/payment/result/:id', async (request, reply) => {
    const id = paymentId(request);
    return sendStatus(reply, frameOf(request, reply, `/payment/result/${id}`), 200, await getPayerPayment(request.ctx, id), request.ctx.clock.now());
  });

  /** The receipt of the payment the address names, as `answer` gives it; a payment without one (unpaid, or marked paid by its merchant) has a page saying so. */
  const receipt =
    <P extends Params>(answer: (request: FastifyRequest<{ Params: P }>, reply: FastifyReply, frame: PageFrame, view: ReceiptView) => Promise<FastifyReply>) =>
    async (request: FastifyRequest<{ Params: P }>, reply: FastifyReply) => {
      const id = paymentId(request);
      const frame = frameOf(request, reply, `/payment/receipt/${id}`);
      const { payment, merchant } = await getPayerPayment(request.ctx, id);
      if (!hasReceipt(payment)) return sendPage(reply, frame, 404, frame.m.noReceiptTitle, noticeContent(frame.m.noReceipt));
      return answer(request, reply, frame, { payment, merchant });
    };

  app.get<{ Params: Params }>(
    '/payment/receipt/:id',
    receipt(async (_request, reply, frame, { payment, merchant }) =>
      sendPage(reply, frame, 200, frame.m.receiptTitle, receiptContent(frame.m, payment, merchant)),
    ),
  );

  // receipt_url: the receipt as a PDF, under the name the provider gives its receipts; another name of the same payment is not found.
  app.get<{ Params: Params & { stamp: string } }>(
    '/payment/receipt/CPKH-:stamp-:id.pdf',
    receipt(async (request, reply, frame, { payment, merchant }) => {
      const name = receiptFileName(payment.paymentId, payment.conciliationAt);
      if (`CPKH-${request.params.stamp}-${payment.paymentId}.pdf` !== name) throw notFound('Receipt');
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `inline; filename="${name}"`)
        .type('application/pdf')
        .send(Buffer.from(await receiptPdf(frame.m, payment, merchant)));
    }),
  );
}
