// The signed-in user's own sessions: when each was opened and last used, from which address and
// browser, and which is this one; one of the others, or all of them, ended once the password is
// given again (app/dashboard-sessions.ts). Every role has it; ending is audited as session.end.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endOwnSessions, ownSessions } from '../../app/dashboard-sessions.js';
import { formatInstant } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { csrfField } from '../payer/pages.js';
import { frameOf, sendPage, sessionOf } from './layout.js';
import { DASHBOARD_PATH } from './session-cookie.js';

export const SESSIONS_PATH = `${DASHBOARD_PATH}/sessions`;

type Form = Record<string, string | undefined>;

async function showSessions(request: FastifyRequest, reply: FastifyReply, status: number, notice?: Html): Promise<FastifyReply> {
  const frame = frameOf(request, reply, SESSIONS_PATH);
  const w = frame.w.sessions;
  const sessions = await ownSessions(request.ctx, sessionOf(request));
  const when = (ms: number) => formatInstant(new Date(ms), frame.m);
  const rows = sessions.map(
    (s) =>
      html`<tr data-session="${s.id}"${s.current ? html` class="current"` : ''}><td>${when(s.createdAt)}</td><td>${when(s.lastSeenAt)}</td><td>${s.address ?? w.unknown}</td><td>${s.userAgent ?? w.unknown}</td><td>${s.current ? w.current : s.halfway ? w.halfway : ''}</td></tr>`,
  );
  const others = sessions.filter((s) => !s.current);
  const form =
    others.length === 0
      ? ''
      : html`<form method="post" action="${SESSIONS_PATH}/end" class="settings">${csrfField(frame.csrf)}
<label for="session">${w.end}</label><select id="session" name="session"><option value="others">${w.endOthers}</option>${others.map((s) => html`<option value="${s.id}">${when(s.createdAt)} · ${s.address ?? w.unknown} · ${s.userAgent ?? w.unknown}</option>`)}</select>
<label for="password">${w.password}</label><input type="password" id="password" name="password" required autocomplete="current-password">
<button class="secondary" id="end-sessions">${w.end}</button></form>`;
  return sendPage(
    reply,
    frame,
    status,
    w.title,
    html`${notice ?? ''}<p>${w.intro}</p>
<table class="sessions"><thead><tr><th>${w.created}</th><th>${w.lastSeen}</th><th>${w.address}</th><th>${w.browser}</th><th></th></tr></thead><tbody>${rows}</tbody></table>
${form}`,
  );
}

export function sessionRoutes(app: FastifyInstance): void {
  app.get(SESSIONS_PATH, async (request, reply) => showSessions(request, reply, 200));

  app.post<{ Body: Form }>(`${SESSIONS_PATH}/end`, { preHandler: app.csrfProtection, config: { dashboardAction: 'session.end' } }, async (request, reply) => {
    const outcome = await endOwnSessions(request.ctx, sessionOf(request), {
      which: request.body?.session ?? '',
      password: request.body?.password ?? '',
      address: request.ip,
    });
    const w = frameOf(request, reply, '').w.sessions;
    if ('ended' in outcome) return showSessions(request, reply, 200, html`<p class="notice" role="status" id="notice">${w.ended(outcome.ended)}</p>`);
    if ('retryAfterMs' in outcome) void reply.header('retry-after', String(Math.ceil(outcome.retryAfterMs / 1000)));
    const status = { 'wrong-password': 401, 'unknown-session': 404, 'too-many-attempts': 429, busy: 503 }[outcome.refused];
    return showSessions(request, reply, status, html`<p class="error" role="alert" id="notice">${w.refused[outcome.refused]}</p>`);
  });
}
