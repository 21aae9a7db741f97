// The payer's review of the consents they gave: GET /oauth2/consents (choose the institution),
// POST /oauth2/consents (opens a review bound to this browser), GET /oauth2/consents/<id> (the
// sign-in, then the consents), POST .../login and POST .../withdraw. Registered inside the flow's
// pages, so it shares their CSRF cookie, error pages and headers; handlers are thin, the use case
// is app/consent-review.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openReview, type ReviewAnswer, reviewInstitutions, reviewSignIn, showReview, withdrawConsent } from '../../app/consent-review.js';
import { fieldError } from '../../domain/errors.js';
import { FLOW_STEP_TIMEOUT_MS } from '../../domain/oauth-tokens.js';
import { cookieName, cookieOptions } from '../cookies.js';
import { consentListPage, institutionChoicePage, reviewLoginPage } from './consent-views.js';
import { sendHtml } from './html-reply.js';
import { field, type PageRequest, pageId } from './page-input.js';
import { messagePage } from './views.js';

/**
 * The review's secret, like a flow's (pages.ts), named after the review. SameSite=Strict: the
 * review is opened by a form of this site, never through another site's redirect.
 */
const reviewCookie = (id: string, secure: boolean) => cookieName(`quipu_oauth_review_${id}`, secure);
const REVIEW_COOKIE_SECONDS = (2 * FLOW_STEP_TIMEOUT_MS) / 1000;

const reviewId = (request: PageRequest) => pageId(request, 'Consent review');

function respond(reply: FastifyReply, answer: ReviewAnswer): FastifyReply {
  switch (answer.kind) {
    case 'login':
      return sendHtml(reply, reviewLoginPage(answer.reviewId, answer.institutionId, reply.generateCsrf()));
    case 'consents':
      return sendHtml(reply, consentListPage(answer.reviewId, answer.userId, answer.consents, reply.generateCsrf()));
    case 'ended':
      return sendHtml(
        reply,
        messagePage(
          'Revisión terminada',
          answer.code === 'timeout'
            ? 'Esta revisión terminó o expiró. Vuelve a /oauth2/consents para empezar de nuevo.'
            : `No pudimos iniciar tu sesión en el banco (${answer.code}). Vuelve a /oauth2/consents para intentarlo de nuevo.`,
        ),
        { status: 409 },
      );
    case 'other-browser':
      return sendHtml(
        reply,
        messagePage(
          'Revisión de otro navegador',
          'Esta revisión se inició en otro navegador, y solo puede continuar en ese. Empieza una nueva en /oauth2/consents.',
        ),
        { status: 403 },
      );
  }
}

export async function consentReviewPages(app: FastifyInstance, { secure }: { secure: boolean }): Promise<void> {
  const browserSecret = (request: PageRequest) => request.cookies[reviewCookie(request.params.id, secure)];

  app.get('/oauth2/consents', { schema: { hide: true } }, async (request, reply) =>
    sendHtml(reply, institutionChoicePage(reviewInstitutions(request.ctx), reply.generateCsrf())),
  );

  app.post('/oauth2/consents', { schema: { hide: true }, preHandler: app.csrfProtection }, async (request: FastifyRequest, reply) => {
    const institutionId = (request.body as Record<string, unknown> | undefined)?.institution_id;
    if (typeof institutionId !== 'string' || institutionId === '') throw fieldError('institution_id', 'is required');
    const review = await openReview(request.ctx, institutionId, request.ip);
    if ('retryAfterMs' in review) {
      const seconds = Math.ceil(review.retryAfterMs / 1000);
      return sendHtml(
        reply.header('retry-after', String(seconds)),
        messagePage('Demasiadas revisiones', `Se abrieron demasiadas revisiones desde tu dirección. Vuelve a /oauth2/consents en ${seconds} s.`),
        { status: 429 },
      );
    }
    reply.setCookie(reviewCookie(review.reviewId, secure), review.browserSecret, {
      ...cookieOptions(secure),
      sameSite: 'strict',
      maxAge: REVIEW_COOKIE_SECONDS,
    });
    return reply.header('cache-control', 'no-store').redirect(`/oauth2/consents/${review.reviewId}`, 303);
  });

  app.get('/oauth2/consents/:id', { schema: { hide: true } }, async (request: PageRequest, reply) =>
    respond(reply, await showReview(request.ctx, reviewId(request), browserSecret(request))),
  );

  app.post('/oauth2/consents/:id/login', { schema: { hide: true }, preHandler: app.csrfProtection }, async (request: PageRequest, reply) => {
    const id = reviewId(request);
    const rut = field(request, 'rut').trim();
    const password = field(request, 'password');
    if (rut === '' || password === '') {
      const answer = await showReview(request.ctx, id, browserSecret(request));
      if (answer.kind !== 'login') return respond(reply, answer);
      return sendHtml(reply, reviewLoginPage(id, answer.institutionId, reply.generateCsrf(), 'Ingresa tu RUT y tu clave.'), { status: 400 });
    }
    const answer = await reviewSignIn(request.ctx, id, browserSecret(request), { identifier: rut, password });
    // Post-redirect-get: the list has its own address.
    if (answer.kind === 'consents') return reply.redirect(`/oauth2/consents/${id}`, 303);
    return respond(reply, answer);
  });

  app.post('/oauth2/consents/:id/withdraw', { schema: { hide: true }, preHandler: app.csrfProtection }, async (request: PageRequest, reply) => {
    const id = reviewId(request);
    const consentId = field(request, 'consent_id');
    if (consentId === '') throw fieldError('consent_id', 'is required');
    const answer = await withdrawConsent(request.ctx, id, browserSecret(request), consentId, request.ip);
    if (answer.kind === 'consents') return reply.redirect(`/oauth2/consents/${id}`, 303);
    return respond(reply, answer);
  });
}
