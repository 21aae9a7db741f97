// Developer mode (developer-mode accounts, where SANDBOX is on): the developer clock (its offset
// from real time, advance, reset), DemoBank's scenario catalogue, and the inbox of the emails
// written to the account's payers, each shown as the payer sees it. An email's HTML is Quipu's
// own rendering (payment-emails.ts escapes every merchant value); it is still shown in a sandboxed
// frame of its own, under a policy that runs no script and sends no form.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { moveClock, resetClock } from '../../app/developer-clock.js';
import { getMessage, pageOfMessages } from '../../app/message-queries.js';
import { SCENARIOS } from '../../bank/demo-bank-scenarios.js';
import { formatOffset } from '../../domain/duration.js';
import { decodeEmail } from '../../domain/email-message.js';
import { DomainError } from '../../domain/errors.js';
import { EMAIL_KINDS } from '../../domain/message-kinds.js';
import { formatInstant } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { csrfField, errorLine } from '../payer/pages.js';
import { type DashboardFrame, frameOf, sendPage, sessionOf } from './layout.js';
import { eventPath, paymentPath } from './payment-page.js';
import { DASHBOARD_PATH } from './session-cookie.js';

const DEVELOPER_PATH = `${DASHBOARD_PATH}/developer`;
const emailPath = (id: string) => `${DEVELOPER_PATH}/emails/${id}`;
const INBOX_SIZE = 50;

/** Developer mode is the developer-mode accounts' only: a production account's user gets a page saying so. */
function developerOnly(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  if (sessionOf(request).merchant.developer) return undefined;
  const frame = frameOf(request, reply, DEVELOPER_PATH);
  return sendPage(reply, frame, 403, frame.w.nav.developer, html`<p class="notice">${frame.w.developer.unavailable}</p>`);
}

function clockSection(frame: DashboardFrame, request: FastifyRequest, error?: string): Html {
  const d = frame.w.developer;
  const { clock } = request.ctx;
  return html`<h2>${d.clock}</h2>
<dl><dt>${d.now}</dt><dd id="clock-now">${formatInstant(clock.now(), frame.m)}</dd>
<dt>${d.offset}</dt><dd id="clock-offset">${formatOffset(clock.offsetMs)}</dd></dl>
${errorLine(error)}
<div class="actions">
<form method="post" action="${DEVELOPER_PATH}/clock/advance">${csrfField(frame.csrf)}<label for="advance">${d.advanceBy}</label><input type="text" id="advance" name="advance" required><button id="advance-clock">${d.advance}</button></form>
<form method="post" action="${DEVELOPER_PATH}/clock/reset">${csrfField(frame.csrf)}<button class="secondary" id="reset-clock">${d.reset}</button></form>
</div>`;
}

function scenarioSection(frame: DashboardFrame): Html {
  const d = frame.w.developer;
  return html`<h2>${d.scenarios}</h2>
<table class="scenarios"><thead><tr><th>id</th><th>${d.trigger}</th><th>${d.outcome}</th></tr></thead><tbody>
${SCENARIOS.map((s) => html`<tr><td><code>${s.id}</code></td><td>${s.trigger}</td><td>${s.outcome}</td></tr>`)}
</tbody></table>`;
}

async function inboxSection(frame: DashboardFrame, request: FastifyRequest): Promise<Html> {
  const d = frame.w.developer;
  const page = await pageOfMessages(request.ctx, { receiverId: sessionOf(request).merchant.receiverId, kinds: EMAIL_KINDS, limit: INBOX_SIZE });
  return html`<h2>${d.inbox}</h2>
${page.messages.length === 0
  ? html`<p class="none">${d.noEmails}</p>`
  : html`<table class="inbox"><thead><tr><th>${frame.w.events.created}</th><th>${d.to}</th><th>${d.subject}</th><th>${frame.w.events.status}</th></tr></thead><tbody>
${page.messages.map((message) => {
  const email = decodeEmail(message.body);
  return html`<tr><td>${formatInstant(new Date(message.created_at), frame.m)}</td><td>${email.toName ? `${email.toName} <${email.to}>` : email.to}</td><td><a href="${emailPath(message.message_id)}" class="email-subject">${email.subject}</a></td><td>${message.status}</td></tr>`;
})}</tbody></table>`}`;
}

async function showDeveloper(request: FastifyRequest, reply: FastifyReply, status: number, clockError?: string) {
  const frame = frameOf(request, reply, DEVELOPER_PATH);
  return sendPage(reply, frame, status, frame.w.nav.developer, html`${clockSection(frame, request, clockError)}${scenarioSection(frame)}${await inboxSection(frame, request)}`);
}

/** Moves the clock; a refusal (a bad duration, production accounts on the installation) is shown beside the clock. */
async function clockAction(request: FastifyRequest, reply: FastifyReply, move: () => Promise<unknown>) {
  const refused = developerOnly(request, reply);
  if (refused) return refused;
  try {
    await move();
  } catch (error) {
    if (!(error instanceof DomainError) || (error.kind !== 'validation' && error.kind !== 'forbidden')) throw error;
    const detail = error.fields.length > 0 ? error.fields.map((f) => `${f.field}: ${f.message}`).join('; ') : error.message;
    return showDeveloper(request, reply, error.kind === 'validation' ? 400 : 403, detail);
  }
  return reply.redirect(DEVELOPER_PATH, 303);
}

export function developerRoutes(app: FastifyInstance): void {
  app.get(DEVELOPER_PATH, async (request, reply) => developerOnly(request, reply) ?? showDeveloper(request, reply, 200));

  app.post<{ Body: { advance?: string } }>(`${DEVELOPER_PATH}/clock/advance`, { preHandler: app.csrfProtection }, async (request, reply) =>
    clockAction(request, reply, () => moveClock(request.ctx, { advance: (request.body?.advance ?? '').trim() })),
  );
  app.post(`${DEVELOPER_PATH}/clock/reset`, { preHandler: app.csrfProtection }, async (request, reply) => clockAction(request, reply, () => resetClock(request.ctx)));

  app.get<{ Params: { id: string } }>(emailPath(':id'), async (request, reply) => {
    const refused = developerOnly(request, reply);
    if (refused) return refused;
    const { message } = await getMessage(request.ctx, request.params.id, { receiverId: sessionOf(request).merchant.receiverId, kinds: EMAIL_KINDS, noun: 'Email' });
    const email = decodeEmail(message.body);
    const frame = frameOf(request, reply, emailPath(message.message_id));
    const d = frame.w.developer;
    return sendPage(
      reply,
      frame,
      200,
      email.subject,
      html`<dl><dt>From</dt><dd>${email.from}</dd><dt>${d.to}</dt><dd id="email-to">${email.toName ? `${email.toName} <${email.to}>` : email.to}</dd>
<dt>${frame.w.payments.payment}</dt><dd><a href="${paymentPath(message.subject_id)}">${message.subject_id}</a></dd>
<dt>${frame.w.events.status}</dt><dd><a href="${eventPath(message.message_id)}">${message.status}</a></dd></dl>
<iframe class="email" title="${email.subject}" sandbox src="${emailPath(message.message_id)}/html"></iframe>
<h2>Text</h2><pre class="email-text">${email.text}</pre>`,
      { frames: true },
    );
  });

  app.get<{ Params: { id: string } }>(`${emailPath(':id')}/html`, async (request, reply) => {
    const refused = developerOnly(request, reply);
    if (refused) return refused;
    const { message } = await getMessage(request.ctx, request.params.id, { receiverId: sessionOf(request).merchant.receiverId, kinds: EMAIL_KINDS, noun: 'Email' });
    return reply
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'none'; frame-ancestors 'self'; base-uri 'none'; sandbox")
      .type('text/html; charset=utf-8')
      .send(decodeEmail(message.body).html);
  });
}
