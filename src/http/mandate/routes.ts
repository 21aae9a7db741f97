// The pages where a payer signs a subscription's mandate (redirect_url): pick a bank, sign in, answer
// the bank's challenge; then the merchant's return_url (signed) or cancel_url (rejected). Thin
// handlers over app/mandate-signing.ts, in the payer pages' frame: forms follow post-redirect-get,
// and a fault (a stale form, a wrong RUT, a subscription no longer signable, a double submit)
// renders a page saying so and changes nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  getSigning,
  getSubscriptionToSign,
  mandateBanks,
  signInForMandate,
  signMandate,
  type SigningSessionView,
  type SigningView,
  startMandateSigning,
} from '../../app/mandate-signing.js';
import { findBank } from '../../domain/banks.js';
import { DomainError, notFound } from '../../domain/errors.js';
import { UUID_PATTERN } from '../../domain/ids.js';
import { isSignable } from '../../domain/mandate-status.js';
import { isSigningOpen } from '../../domain/mandate-signing.js';
import { mandatePath } from '../../domain/subscription.js';
import type { Html } from '../../render/html.js';
import type { PageFrame } from '../payer/layout.js';
import { type FormErrors, noticeContent } from '../payer/pages.js';
import { frameOf, sendPage } from '../payer/routes.js';
import { allowImages } from '../payer/security.js';
import { choosePage, expiredSigningContent, mandateLoginPage, mandateStatusContent, signingPath, signPage, type SigningPageView } from './pages.js';

/** Where the mandate pages live: their cookies (CSRF, language) are sent there only. */
export const MANDATE_PAGES_PATH = '/pac-manager';

type Params = { id: string };
type Form = Record<string, string | undefined>;

const kindOf = (error: unknown) => (error instanceof DomainError ? error.kind : undefined);
const fieldsOf = (error: DomainError) => new Set(error.fields.map((f) => f.field));

function uuidParam(request: FastifyRequest<{ Params: Params }>, what: string): string {
  if (!UUID_PATTERN.test(request.params.id)) throw notFound(what);
  return request.params.id;
}

const pageFrame = (request: FastifyRequest, reply: FastifyReply, selfPath: string) => frameOf(request, reply, selfPath, MANDATE_PAGES_PATH);

/** Every mandate page may show the merchant's picture of the subscription. */
function sendMandatePage(
  reply: FastifyReply,
  frame: PageFrame,
  status: number,
  title: string,
  content: Html,
  view: SigningView,
  formTargets: (string | null)[] = [],
): FastifyReply {
  allowImages(reply, [view.subscription.imageUrl]);
  return sendPage(reply, frame, status, title, content, formTargets);
}

function sendMandateStatus(reply: FastifyReply, frame: PageFrame, status: number, view: SigningView, notice?: string): FastifyReply {
  const page = mandateStatusContent({ ...view, m: frame.m }, notice);
  return sendMandatePage(reply, frame, status, page.title, page.body, view);
}

/** What a session the payer can no longer act on shows: the mandate's state, the bank at work, or that it expired. */
function sendSigningOutcome(reply: FastifyReply, frame: PageFrame, status: number, view: SigningSessionView, now: Date, notice?: string): FastifyReply {
  const { m } = frame;
  if (!isSignable(view.subscription.state)) return sendMandateStatus(reply, frame, status, view, notice);
  if (view.signing.state === 'signing')
    return sendMandatePage(
      reply,
      frame,
      status,
      m.mandate.processingTitle,
      noticeContent(notice ? `${notice} ${m.mandate.processing}` : m.mandate.processing),
      view,
    );
  if (!isSigningOpen(view.signing, now)) return sendMandatePage(reply, frame, status, m.mandate.expiredTitle, expiredSigningContent({ ...view, m }), view);
  return sendMandateStatus(reply, frame, status, view, notice);
}

function signingPageView(view: SigningSessionView, frame: PageFrame, csrf: string): SigningPageView {
  const bank = findBank(view.signing.bankId, view.subscription.developer);
  return { ...view, m: frame.m, csrf, bankName: bank?.name ?? view.signing.bankId, bankMessage: bank?.message ?? '' };
}

export function mandateRoutes(app: FastifyInstance): void {
  const choose = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, values: Form, errors: FormErrors) => {
    const id = uuidParam(request, 'Subscription');
    const frame = pageFrame(request, reply, mandatePath(id));
    const view = await getSubscriptionToSign(request.ctx, id);
    if (!isSignable(view.subscription.state)) return sendMandateStatus(reply, frame, status === 200 ? 200 : 409, view);
    const page = choosePage(
      { ...view, m: frame.m, csrf: reply.generateCsrf() },
      mandateBanks(request.ctx, view.subscription),
      { bankId: values.bank_id },
      errors,
    );
    return sendMandatePage(reply, frame, status, frame.m.mandate.title, page, view);
  };
  app.get<{ Params: Params }>(`${MANDATE_PAGES_PATH}/:id`, async (request, reply) => choose(request, reply, 200, {}, {}));
  app.post<{ Params: Params; Body: Form }>(`${MANDATE_PAGES_PATH}/:id`, { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body ?? {};
    try {
      const signing = await startMandateSigning(request.ctx, uuidParam(request, 'Subscription'), body.bank_id);
      return reply.redirect(signingPath(signing), 303);
    } catch (error) {
      if (kindOf(error) === 'validation') return choose(request, reply, 400, body, { bank_id: pageFrame(request, reply, '').m.mandate.bankError });
      if (kindOf(error) === 'state') return choose(request, reply, 409, body, {});
      throw error;
    }
  });

  const login = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, values: Form, errors: FormErrors) => {
    const id = uuidParam(request, 'Signing');
    const frame = pageFrame(request, reply, `${MANDATE_PAGES_PATH}/signing/${id}`);
    const view = await getSigning(request.ctx, id);
    const now = request.ctx.clock.now();
    const active = isSigningOpen(view.signing, now) && isSignable(view.subscription.state);
    if (view.signing.state === 'authenticated' && active) return reply.redirect(`${signingPath(view.signing)}/sign`, 303);
    if (view.signing.state !== 'started' || !active) return sendSigningOutcome(reply, frame, status === 200 ? 200 : 409, view, now);
    const page = signingPageView(view, frame, reply.generateCsrf());
    return sendMandatePage(reply, frame, status, frame.m.bankLogin(page.bankName), mandateLoginPage(page, { rut: values.rut }, errors), view);
  };
  app.get<{ Params: Params }>(`${MANDATE_PAGES_PATH}/signing/:id`, async (request, reply) => login(request, reply, 200, {}, {}));
  app.post<{ Params: Params; Body: Form }>(`${MANDATE_PAGES_PATH}/signing/:id/login`, { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body ?? {};
    const id = uuidParam(request, 'Signing');
    try {
      await signInForMandate(request.ctx, id, { identifier: body.rut ?? '', password: body.password ?? '' });
      return reply.redirect(`${MANDATE_PAGES_PATH}/signing/${id}/sign`, 303);
    } catch (error) {
      const { m } = pageFrame(request, reply, '');
      if (kindOf(error) === 'validation') {
        const fields = fieldsOf(error as DomainError);
        return login(request, reply, 400, body, {
          rut: fields.has('rut') ? m.rutError : undefined,
          password: fields.has('password') ? m.passwordError : undefined,
        });
      }
      if (kindOf(error) === 'unavailable') return login(request, reply, 503, body, { form: m.bankUnavailable });
      if (kindOf(error) === 'state') return login(request, reply, 409, body, {});
      throw error;
    }
  });

  const sign = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, errors: FormErrors, notice?: string) => {
    const id = uuidParam(request, 'Signing');
    const frame = pageFrame(request, reply, `${MANDATE_PAGES_PATH}/signing/${id}/sign`);
    const view = await getSigning(request.ctx, id);
    const now = request.ctx.clock.now();
    if (view.signing.state !== 'authenticated' || !isSigningOpen(view.signing, now) || !isSignable(view.subscription.state)) {
      if (status === 200) return reply.redirect(signingPath(view.signing), 303);
      const submitted = view.signing.state !== 'started' && view.signing.state !== 'authenticated';
      return sendSigningOutcome(reply, frame, status, view, now, submitted ? notice : undefined);
    }
    const page = signPage(signingPageView(view, frame, reply.generateCsrf()), request.ctx.banks.connectorFor(view.signing.bankId)!.challenge, errors);
    return sendMandatePage(reply, frame, status, frame.m.mandate.signTitle, page, view, [view.subscription.returnUrl, view.subscription.cancelUrl]);
  };
  app.get<{ Params: Params }>(`${MANDATE_PAGES_PATH}/signing/:id/sign`, async (request, reply) => sign(request, reply, 200, {}));
  app.post<{ Params: Params; Body: Form }>(`${MANDATE_PAGES_PATH}/signing/:id/sign`, { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body ?? {};
    const id = uuidParam(request, 'Signing');
    const answers = ['c1', 'c2', 'c3'].map((field) => (body[field] ?? '').trim());
    try {
      const { outcome, subscription } = await signMandate(request.ctx, id, answers);
      // A mandate signed and waiting for the bank's approval is signed for the payer too: return_url.
      return reply.redirect(outcome === 'rejected' ? subscription.cancelUrl : subscription.returnUrl, 303);
    } catch (error) {
      const { m } = pageFrame(request, reply, '');
      if (kindOf(error) === 'validation') return sign(request, reply, 400, { coordinates: m.coordinatesError });
      if (kindOf(error) === 'forbidden') return sign(request, reply, 403, { coordinates: m.mandate.wrongCoordinates });
      if (kindOf(error) === 'unavailable') return sign(request, reply, 503, { form: m.bankUnavailable });
      if (kindOf(error) === 'state') return sign(request, reply, 409, {}, m.mandate.alreadySubmitted);
      throw error;
    }
  });
}
