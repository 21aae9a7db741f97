// The frame of every dashboard page: the shared page document with the dashboard's stylesheet, a
// navigation bar, the language switch and, signed in, who is signed in and the sign-out form. No
// script: every page works with links and forms.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardSession } from '../../app/dashboard-sessions.js';
import { type DashboardAction, mayAct } from '../../domain/dashboard-roles.js';
import { type Html, html } from '../../render/html.js';
import { type Lang, messages, type Messages } from '../../render/words.js';
import { pageDocument } from '../html.js';
import { languageOf } from '../payer/i18n.js';
import { csrfField } from '../payer/pages.js';
import { contentSecurityPolicy } from '../page-security.js';
import { DASHBOARD_PATH } from './session-cookie.js';
import { dashboardWords, type DashboardWords } from './words.js';

export const STYLESHEET_PATH = `${DASHBOARD_PATH}/assets/dashboard.css`;

export interface DashboardFrame {
  lang: Lang;
  /** The payer pages' words: locale and formats. */
  m: Messages;
  w: DashboardWords;
  /** The GET address of this page, for the language switch. */
  selfPath: string;
  session?: DashboardSession;
  /** The CSRF token of this page's forms. */
  csrf: string;
}

const sessions = new WeakMap<FastifyRequest, DashboardSession>();

export function rememberSession(request: FastifyRequest, session: DashboardSession): void {
  sessions.set(request, session);
}

/** The signed-in session of the request, if the scope found one. */
export const sessionIf = (request: FastifyRequest): DashboardSession | undefined => sessions.get(request);

/** The signed-in session of a request the scope let through (every page but sign-in's). */
export function sessionOf(request: FastifyRequest): DashboardSession {
  const session = sessions.get(request);
  if (!session) throw new Error('dashboard page reached without a session');
  return session;
}

/** Whether the signed-in user's role may run the action: pages offer only the forms it allows. */
export const may = (frame: DashboardFrame, action: DashboardAction): boolean => frame.session !== undefined && mayAct(frame.session.role, action);

export function frameOf(request: FastifyRequest, reply: FastifyReply, selfPath: string): DashboardFrame {
  const lang = languageOf(request, reply, DASHBOARD_PATH);
  return { lang, m: messages(lang), w: dashboardWords(lang), selfPath, session: sessionIf(request), csrf: reply.generateCsrf() };
}

type Section = keyof DashboardWords['nav'];
const SECTIONS: Record<Section, string> = {
  home: DASHBOARD_PATH,
  payments: `${DASHBOARD_PATH}/payments`,
  events: `${DASHBOARD_PATH}/events`,
  subscriptions: `${DASHBOARD_PATH}/subscriptions`,
  operations: `${DASHBOARD_PATH}/operations`,
  settings: `${DASHBOARD_PATH}/settings`,
  audit: `${DASHBOARD_PATH}/audit`,
  developer: `${DASHBOARD_PATH}/developer`,
};

function navigation(frame: DashboardFrame): Html {
  const { session, w } = frame;
  if (!session) return html``;
  // A generated password due for replacement opens no section.
  const shown = session.passwordChangeDue
    ? []
    : (Object.keys(SECTIONS) as Section[]).filter((s) => (s !== 'developer' || session.merchant.developer) && (s !== 'audit' || may(frame, 'audit.read')));
  return html`<nav>${shown.map((s) => html`<a href="${SECTIONS[s]}"${frame.selfPath === SECTIONS[s] ? html` aria-current="page"` : ''}>${w.nav[s]}</a>`)}</nav>
<div class="who"><span class="signed-in">${w.signedInAs(session.email, session.merchant.name)}</span> <span class="role" id="role">${w.roles[session.role]}</span>
<form method="post" action="${DASHBOARD_PATH}/sign-out" class="sign-out">${csrfField(frame.csrf)}<button class="secondary" id="sign-out">${w.signOut}</button></form>
<form method="post" action="${DASHBOARD_PATH}/sign-out-everywhere" class="sign-out">${csrfField(frame.csrf)}<button class="secondary" id="sign-out-everywhere">${w.signOutEverywhere}</button></form></div>`;
}

/** Sends a dashboard page; `frames` lets it embed frames from this server (the email preview). */
export function sendPage(
  reply: FastifyReply,
  frame: DashboardFrame,
  status: number,
  title: string,
  content: Html,
  options: { frames?: boolean } = {},
): FastifyReply {
  const other: Lang = frame.lang === 'es' ? 'en' : 'es';
  const header = html`${navigation(frame)}<a class="lang" href="${frame.selfPath}${frame.selfPath.includes('?') ? '&' : '?'}lang=${other}" hreflang="${other}">${frame.m.otherLanguage}</a>`;
  const policy = contentSecurityPolicy([]) + (options.frames ? "; frame-src 'self'" : '');
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', policy)
    .type('text/html; charset=utf-8')
    .send(pageDocument({ lang: frame.m.htmlLang, title, header, content, stylesheet: STYLESHEET_PATH }));
}
