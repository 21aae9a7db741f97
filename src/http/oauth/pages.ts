// /oauth2/authorize and the flow's pages. Handlers are thin: a use case decides, these render or
// redirect. The pages need no script, post their forms with a CSRF token bound to a cookie, answer
// only the browser holding the flow's own cookie, and carry a strict Content-Security-Policy whose
// form-action names only this server and the client's redirect_uri (browsers apply form-action to
// the redirect that answers a form too).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { abortFlow, type BrowserSecret, decideConsent, type Delivery, type FlowAnswer, showFlow, signIn } from '../../app/authorization-steps.js';
import { startAuthorization } from '../../app/start-authorization.js';
import { DomainError, type FieldError } from '../../domain/errors.js';
import type { Query } from '../../domain/oauth-request.js';
import { customHeaderValue, redirectWith } from '../../domain/oauth-redirect.js';
import { FLOW_STEP_TIMEOUT_MS } from '../../domain/oauth-tokens.js';
import { cookieName, cookieOptions, secureCookies } from '../cookies.js';
import { pageSecurity } from '../page-security.js';
import { logDoubts } from '../warnings.js';
import { consentReviewPages } from './consent-pages.js';
import { sendHtml } from './html-reply.js';
import { field, PAGE_ID, type PageRequest, pageId } from './page-input.js';
import { consentPage, formPostPage, loginPage, messagePage } from './views.js';

const FORM = 'application/x-www-form-urlencoded';
/**
 * The flow's secret, given to the browser that started it. Named after the flow (every cookie has
 * Path=/, ../cookies.ts), so flows in several tabs keep their own; SameSite=Lax, so the first page,
 * reached through the redirect that answers the client's cross-site navigation, gets it too. It
 * lasts as long as the flow's two steps (sign-in, consent) may, so finished flows leave none behind.
 */
const flowCookie = (id: string, secure: boolean) => cookieName(`quipu_oauth_flow_${id}`, secure);
const FLOW_COOKIE_SECONDS = (2 * FLOW_STEP_TIMEOUT_MS) / 1000;

function deliver(request: FastifyRequest, reply: FastifyReply, delivery: Delivery): FastifyReply {
  if (delivery.custom !== null) reply.header('x-custom', customHeaderValue(delivery.custom));
  if (delivery.mode === 'query') return reply.header('cache-control', 'no-store').redirect(redirectWith(delivery.redirectUri, delivery.params), 303);
  const nonce = Buffer.from(request.ctx.random(16)).toString('base64');
  return sendHtml(reply, formPostPage(delivery.redirectUri, delivery.params, nonce), { redirectUri: delivery.redirectUri, nonce });
}

function respond(request: FastifyRequest, reply: FastifyReply, answer: FlowAnswer): FastifyReply {
  switch (answer.kind) {
    case 'deliver':
      return deliver(request, reply, answer.delivery);
    case 'finished':
      return sendHtml(
        reply,
        messagePage('Autorización terminada', 'Esta autorización ya terminó. Vuelve a la aplicación que te trajo aquí para empezar de nuevo.'),
        { status: 409 },
      );
    case 'other-browser':
      return sendHtml(
        reply,
        messagePage(
          'Autorización de otro navegador',
          'Esta autorización se inició en otro navegador, y solo puede continuar en ese. Vuelve a la aplicación que te trajo aquí para empezar de nuevo en este.',
        ),
        { status: 403 },
      );
    case 'page': {
      const { page } = answer;
      const body = page.step === 'login' ? loginPage(page, reply.generateCsrf()) : consentPage(page, reply.generateCsrf());
      return sendHtml(reply, body, { redirectUri: page.redirectUri });
    }
  }
}

const flowId = (request: PageRequest) => pageId(request, 'Authorization');

function browserSecret(request: FastifyRequest): BrowserSecret {
  const id = (request.params as { id?: string } | undefined)?.id;
  return id === undefined ? undefined : request.cookies[flowCookie(id, secureCookies(request.ctx.config))];
}

/** OpenID Connect Core 3.1.2.1: the authorization request comes as a query (GET) or as a form (POST). */
function authorizationParameters(request: FastifyRequest): Query {
  if (request.method === 'GET') return request.query as Query;
  if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith(FORM))
    throw new DomainError('validation', `The authorization request must be sent as ${FORM}`);
  return (request.body ?? {}) as Query;
}

export async function authorizationPages(app: FastifyInstance, { secure }: { secure: boolean }): Promise<void> {
  await pageSecurity(app, { cookieKey: 'quipu_oauth_csrf', sameSite: 'strict', secureCookies: secure });

  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError && error.kind === 'not_found') {
      return sendHtml(reply, messagePage('Autorización desconocida', 'No encontramos esta autorización. Vuelve a la aplicación que te trajo aquí.'), {
        status: 404,
      });
    }
    if (error.code?.startsWith('FST_CSRF')) {
      return sendHtml(reply, messagePage('Formulario no válido', 'El formulario no vino de esta página o ya no es válido. Vuelve a cargar la página.'), {
        status: 403,
      });
    }
    if (error instanceof DomainError && error.kind === 'validation') return sendHtml(reply, messagePage('Solicitud no válida', error.message), { status: 400 });
    if ((error.statusCode ?? 500) < 500) return sendHtml(reply, messagePage('Solicitud no válida', error.message), { status: error.statusCode });
    request.log.error({ err: error }, 'authorization page failed');
    // The client still hears how its flow ended (E999) when the failure happened inside a known flow.
    const id = (request.params as { id?: string } | undefined)?.id;
    const aborted = id && PAGE_ID.test(id) ? await abortFlow(request.ctx, id, browserSecret(request)).catch(() => undefined) : undefined;
    if (aborted) return respond(request, reply, aborted);
    return sendHtml(reply, messagePage('Error', `No pudimos completar la autorización (solicitud ${request.id}).`), { status: 500 });
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/oauth2/authorize',
    // Opening a flow writes it: HEAD, which no client sends for this, must not.
    exposeHeadRoute: false,
    schema: { hide: true },
    handler: async (request, reply) => {
      const doubts: FieldError[] = [];
      const start = await startAuthorization(request.ctx, authorizationParameters(request), doubts);
      // The answer goes to the user's browser, not to the client, and no account is authenticated
      // here: the doubts are for the log line only.
      logDoubts(request, doubts);
      if (start.outcome === 'refused') {
        return sendHtml(
          reply,
          messagePage('Solicitud de autorización no válida', `${start.parameter}: ${start.message}. No se puede volver a la aplicación.`),
          { status: 400 },
        );
      }
      if (start.outcome === 'redirect') return deliver(request, reply, start.delivery);
      const flow = `/oauth2/flows/${start.authorizationId}`;
      reply.setCookie(flowCookie(start.authorizationId, secure), start.browserSecret, {
        ...cookieOptions(secure),
        sameSite: 'lax',
        maxAge: FLOW_COOKIE_SECONDS,
      });
      return reply.header('cache-control', 'no-store').redirect(flow, 303);
    },
  });

  await app.register(consentReviewPages, { secure });

  app.get('/oauth2/flows/:id', { schema: { hide: true } }, async (request: PageRequest, reply) =>
    respond(request, reply, await showFlow(request.ctx, flowId(request), browserSecret(request))),
  );

  app.post('/oauth2/flows/:id/login', { schema: { hide: true }, preHandler: app.csrfProtection }, async (request: PageRequest, reply) => {
    const id = flowId(request);
    const rut = field(request, 'rut').trim();
    const password = field(request, 'password');
    if (rut === '' || password === '') {
      const answer = await showFlow(request.ctx, id, browserSecret(request));
      if (answer.kind !== 'page' || answer.page.step !== 'login') return respond(request, reply, answer);
      return sendHtml(reply, loginPage(answer.page, reply.generateCsrf(), 'Ingresa tu RUT y tu clave.'), { status: 400, redirectUri: answer.page.redirectUri });
    }
    const answer = await signIn(request.ctx, id, browserSecret(request), { identifier: rut, password });
    // Post-redirect-get: the consent page has its own address.
    if (answer.kind === 'page') return reply.redirect(`/oauth2/flows/${id}`, 303);
    return respond(request, reply, answer);
  });

  app.post('/oauth2/flows/:id/consent', { schema: { hide: true }, preHandler: app.csrfProtection }, async (request: PageRequest, reply) => {
    const decision = field(request, 'decision');
    if (decision !== 'allow' && decision !== 'deny') throw new DomainError('validation', 'decision must be allow or deny');
    return respond(request, reply, await decideConsent(request.ctx, flowId(request), browserSecret(request), decision === 'allow'));
  });
}
