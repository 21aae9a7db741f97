// The merchant dashboard (`/`, pages under /dashboard): server-rendered pages in a scope of their
// own with the payer pages' defences (helmet, CSRF bound to a cookie scoped to the dashboard, a
// no-script CSP), a session checked before every page but sign-in's (and, while the user's password
// is a generated one, only its replacement let through), and a page saying what happened for every
// fault. Out of the OpenAPI document.
import { forAccount } from '../../app/context.js';
import fs from 'node:fs';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { audit } from '../../app/audit.js';
import { AUDIT_ACTIONS, type AuditAction, outcomeOf } from '../../domain/audit.js';
import { auditTarget } from '../audit-hook.js';
import type { Config } from '../../config.js';
import { currentSession } from '../../app/dashboard-sessions.js';
import { type DashboardAction, mayAct } from '../../domain/dashboard-roles.js';
import { notFound } from '../../domain/errors.js';
import { html } from '../../render/html.js';
import { pageFaultOf, pageSecurity } from '../page-security.js';
import { DomainError } from '../../domain/errors.js';
import { HttpTransport } from '../../delivery/http-transport.js';
import { auditRoutes } from './audit.js';
import { developerRoutes } from './developer.js';
import { eventRoutes } from './events.js';
import { homeRoutes } from './home.js';
import { frameOf, rememberSession, sendPage, sessionIf, STYLESHEET_PATH } from './layout.js';
import { operationRoutes } from './operations.js';
import { paymentRoutes } from './payments.js';
import { wasRefused } from './refusals.js';
import { secureCookies } from '../cookies.js';
import { CSRF_COOKIE, DASHBOARD_PATH, sessionToken } from './session-cookie.js';
import { PASSWORD_PATH, SETTINGS_PATH, settingsRoutes } from './settings.js';
import { sessionRoutes } from './sessions.js';
import { SECOND_FACTOR_PATH, SIGN_IN_PATH, signInRoutes } from './sign-in.js';
import { requestLogRoutes } from './requests.js';
import { subscriptionRoutes } from './subscriptions.js';

const STYLESHEET = fs.readFileSync(new URL('./dashboard.css', import.meta.url), 'utf8');

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a state-changing dashboard route does, whose row says which roles may (domain/dashboard-roles.ts). */
    dashboardAction?: DashboardAction;
  }
}

/** Routes any visitor may reach (the second factor's page checks its halfway session itself); every other page needs a session. */
const PUBLIC_PATHS = new Set(['/', SIGN_IN_PATH, SECOND_FACTOR_PATH, STYLESHEET_PATH]);

/** All a user whose password is a generated one may reach: the page that replaces it, and signing out. */
const PASSWORD_CHANGE_ROUTES = new Set([
  `GET ${SETTINGS_PATH}`,
  `POST ${PASSWORD_PATH}`,
  `POST ${DASHBOARD_PATH}/sign-out`,
  `POST ${DASHBOARD_PATH}/sign-out-everywhere`,
]);

async function requireSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (PUBLIC_PATHS.has(request.routeOptions.url ?? '')) return;
  const token = sessionToken(request);
  const session = token ? await currentSession(request.ctx, token) : undefined;
  // A form posted without a live session (after signing out, or once it ended) changes nothing.
  if (!session) return reply.redirect(SIGN_IN_PATH, 303);
  rememberSession(request, session);
  // The account's pages show its records on its clock.
  request.ctx = forAccount(request.ctx, session.merchant.receiverId);
  if (session.passwordChangeDue && !PASSWORD_CHANGE_ROUTES.has(`${request.method} ${request.routeOptions.url}`)) return reply.redirect(SETTINGS_PATH, 303);
  const action = request.routeOptions.config.dashboardAction;
  if (action !== undefined && !mayAct(session.role, action)) {
    const frame = frameOf(request, reply, DASHBOARD_PATH);
    return sendPage(
      reply,
      frame,
      403,
      frame.w.roleTitle,
      html`<p class="error" role="alert" id="notice">${frame.w.roleRefused(frame.w.roles[session.role])}</p>`,
    );
  }
}

/** Every action of a signed-in user goes to the audit log, with how it ended; sign-in records its own. */
function auditAction(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const { dashboardAction, auditAction: named } = request.routeOptions.config;
  const action = named ?? (dashboardAction !== undefined && Object.hasOwn(AUDIT_ACTIONS, dashboardAction) ? (dashboardAction as AuditAction) : undefined);
  const session = sessionIf(request);
  if (action !== undefined && session !== undefined) {
    const receiverId = session.merchant.receiverId;
    void audit(request.ctx, {
      actorKind: 'user',
      actor: session.email,
      receiverId,
      action,
      target: auditTarget(request),
      outcome: wasRefused(request) ? 'refused' : outcomeOf(reply.statusCode),
      address: request.ip,
    });
  }
  done();
}

/** Every form a signed-in user posts names its action, so no new one escapes the roles' table. */
function requireActionOn(route: RouteOptions): void {
  const methods = [route.method].flat();
  if (methods.includes('POST') && !PUBLIC_PATHS.has(route.url) && route.config?.dashboardAction === undefined) {
    throw new Error(`dashboard route POST ${route.url} names no dashboardAction (domain/dashboard-roles.ts)`);
  }
}

function faultPages(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const frame = frameOf(request, reply, request.url.split('?')[0]!);
    const { w } = frame;
    const page = (status: number, title: string, text: string) => sendPage(reply, frame, status, title, html`<p class="notice">${text}</p>`);
    const fault = pageFaultOf(error);
    if (fault.kind === 'not-found') return page(fault.status, w.notFoundTitle, w.notFound);
    if (fault.kind === 'form') return page(fault.status, w.formTitle, w.formInvalid);
    // The fields' names only: their messages are the API's, in English.
    if (fault.kind === 'bad-request') {
      const fields = error instanceof DomainError && error.fields.length > 0 ? ` (${error.fields.map((f) => f.field).join(', ')})` : '';
      return page(fault.status, w.errorTitle, `${w.badRequest}${fields}`);
    }
    request.log.error({ err: error }, 'dashboard page failed');
    return page(fault.status, w.errorTitle, w.error);
  });
}

export async function dashboard(app: FastifyInstance, { config }: { config: Config }): Promise<void> {
  await pageSecurity(app, { cookieKey: CSRF_COOKIE, sameSite: 'lax', secureCookies: secureCookies(config) });
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
    requireActionOn(route);
  });
  app.addHook('preHandler', requireSession);
  app.addHook('onResponse', auditAction);
  faultPages(app);
  app.get('/', async (_request, reply) => reply.redirect(DASHBOARD_PATH, 303));
  app.get(STYLESHEET_PATH, async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET));
  signInRoutes(app);
  homeRoutes(app);
  paymentRoutes(app, config.sandbox);
  // What the pages send themselves, once, while the user waits (send to another URL, the test event).
  const transport = new HttpTransport(config.deliveryTimeoutMs, config.deliveryConcurrencyPerDestination, config.notifyDestinations);
  app.addHook('onClose', () => transport.close());
  eventRoutes(app, transport);
  subscriptionRoutes(app);
  operationRoutes(app);
  settingsRoutes(app, transport);
  sessionRoutes(app);
  auditRoutes(app);
  requestLogRoutes(app);
  if (config.sandbox) developerRoutes(app);
  app.get(`${DASHBOARD_PATH}/*`, async () => {
    throw notFound('Page');
  });
}
