// The signed-in user's own sessions: when each was opened and last used, from which address and
// browser, and which is this one; one of the others, or all of them, ended once the password is
// given again (app/dashboard-sessions.ts). Every role has it; ending is audited as session.end.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endOwnSessions, ownSessions } from '../../app/dashboard-sessions.js';
import { formatShortInstant } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { csrfField } from '../payer/pages.js';
import { when } from './dates.js';
import { frameOf, sendPage, sessionOf, SESSIONS_PATH } from './layout.js';
import { dataTable } from './table.js';

type Form = Record<string, string | undefined>;

async function showSessions(request: FastifyRequest, reply: FastifyReply, status: number, notice?: Html): Promise<FastifyReply> {
  const frame = frameOf(request, reply, SESSIONS_PATH);
  const w = frame.w.sessions;
  const sessions = await ownSessions(request.ctx, sessionOf(request));
  const at = (ms: number) => formatShortInstant(new Date(ms), frame.m);
  const rows = sessions.map((s) => ({
    attributes: html`data-session="${s.id}"${s.current ? html` class="current"` : ''}`,
    cells: [
      when(new Date(s.createdAt), frame.m),
      when(new Date(s.lastSeenAt), frame.m),
      s.address ?? w.unknown,
      s.userAgent ?? w.unknown,
      s.current ? w.current : s.halfway ? w.halfway : '',
    ],
  }));
  const others = sessions.filter((s) => !s.current);
  const form =
    others.length === 0
      ? ''
      : html`<form method="post" action="${SESSIONS_PATH}/end" class="settings">${csrfField(frame.csrf)}
<label for="session">${w.end}</label><select id="session" name="session"><option value="others">${w.endOthers}</option>${others.map((s) => html`<option value="${s.id}">${at(s.createdAt)} · ${s.address ?? w.unknown} · ${s.userAgent ?? w.unknown}</option>`)}</select>
<label for="password">${w.password}</label><input type="password" id="password" name="password" required autocomplete="current-password">
<button class="secondary" id="end-sessions">${w.end}</button></form>`;
  return sendPage(
    reply,
    frame,
    status,
    w.title,
    html`${notice ?? ''}<p>${w.intro}</p>
${dataTable('sessions', [{ label: w.created }, { label: w.lastSeen }, { label: w.address }, { label: w.browser }, { label: w.which }], rows)}
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
