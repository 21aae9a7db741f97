// The frame of every dashboard page: the shared page document with the dashboard's stylesheet, a
// navigation bar, a link to the API reference, the language switch and, signed in, a menu with who
// is signed in and the sign-out forms. Every page works with links and forms alone; its one script
// (allowed by a nonce) only adds copy buttons beside ids (ids.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardSession } from '../../app/dashboard-sessions.js';
import { type DashboardAction, mayAct } from '../../domain/dashboard-roles.js';
import { formatOffset } from '../../domain/duration.js';
import { type Html, html } from '../../render/html.js';
import { type Lang, messages, type Messages } from '../../render/words.js';
import { pageDocument } from '../html.js';
import { languageOf } from '../payer/i18n.js';
import { csrfField } from '../payer/pages.js';
import { contentSecurityPolicy } from '../page-security.js';
import { copyScript } from './ids.js';
import { DASHBOARD_PATH } from './session-cookie.js';
import { dashboardWords, type DashboardWords } from './words.js';

export const STYLESHEET_PATH = `${DASHBOARD_PATH}/assets/dashboard.css`;
export const SESSIONS_PATH = `${DASHBOARD_PATH}/sessions`;

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
  requests: `${DASHBOARD_PATH}/requests`,
  developer: `${DASHBOARD_PATH}/developer`,
};

function navigation(frame: DashboardFrame): Html {
  const { session, w } = frame;
  if (!session) return html``;
  // A generated password due for replacement opens no section.
  const shown = session.passwordChangeDue
    ? []
    : (Object.keys(SECTIONS) as Section[]).filter((s) => (s !== 'developer' || session.merchant.developer) && (s !== 'audit' || may(frame, 'audit.read')));
  return html`<nav aria-label="${w.title}">${shown.map((s) => html`<a href="${SECTIONS[s]}"${frame.selfPath === SECTIONS[s] ? html` aria-current="page"` : ''}>${w.nav[s]}</a>`)}<a href="/docs" class="docs">${w.docs}</a></nav>`;
}

/** Who is signed in, in a menu that opens without script (details): the account, the role, the sessions and signing out. */
function accountMenu(frame: DashboardFrame): Html {
  const { session, w } = frame;
  if (!session) return html``;
  return html`<details class="account"><summary><span class="account-name">${session.merchant.name}</span></summary>
<div class="menu"><p class="signed-in">${w.signedInAs(session.email, session.merchant.name)}</p><p><span class="role" id="role">${w.roles[session.role]}</span></p>
<p><a href="${SESSIONS_PATH}">${w.sessionsLink}</a></p>
<form method="post" action="${DASHBOARD_PATH}/sign-out" class="sign-out">${csrfField(frame.csrf)}<button class="secondary" id="sign-out">${w.signOut}</button></form>
<form method="post" action="${DASHBOARD_PATH}/sign-out-everywhere" class="sign-out">${csrfField(frame.csrf)}<button class="secondary" id="sign-out-everywhere">${w.signOutEverywhere}</button></form></div></details>`;
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
  // Whenever the account's clock runs ahead, every page says so: its dates are not today's.
  const offset = frame.session ? reply.request.ctx.clock.offsetMs : 0;
  const strip =
    offset > 0
      ? html`<p class="clock-strip" role="status" id="clock-strip">${frame.w.clockAhead(formatOffset(offset))} · <a href="${SECTIONS.developer}">${frame.w.clockAheadLink}</a></p>`
      : '';
  const tools = html`<div class="tools"><a class="lang" href="${frame.selfPath}${frame.selfPath.includes('?') ? '&' : '?'}lang=${other}" hreflang="${other}" lang="${other}">${frame.m.otherLanguage}</a>${accountMenu(frame)}</div>`;
  // The copy buttons' script, on the pages that show an id (the others stay without script).
  const nonce = content.text.includes('data-copy=') ? Buffer.from(reply.request.ctx.random(16)).toString('base64') : undefined;
  const policy = `${contentSecurityPolicy([])}${nonce ? `; script-src 'nonce-${nonce}'` : ''}${options.frames ? "; frame-src 'self'" : ''}`;
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', policy)
    .type('text/html; charset=utf-8')
    .send(
      pageDocument({
        lang: frame.m.htmlLang,
        title,
        header: html`${navigation(frame)}${tools}`,
        content: html`${strip}${content}`,
        stylesheet: STYLESHEET_PATH,
        script: nonce ? { nonce, source: copyScript(frame.w) } : undefined,
      }),
    );
}
