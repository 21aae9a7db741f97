// Developer mode (developer-mode accounts, where SANDBOX is on): a link to the request log
// (requests.ts, which every account has), the developer clock (its offset from real time, advance,
// reset), DemoBank's scenario catalogue with a button that runs each scenario on the account
// (app/run-scenario.ts) and opens what it made, and the inbox of the emails written to the
// account's payers, each shown as the payer sees it. An email's HTML is Quipu's
// own rendering (payment-emails.ts escapes every merchant value); it is still shown in a sandboxed
// frame of its own, under a policy that runs no script and sends no form.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { moveAccountClock, resetAccountClock } from '../../app/developer-clock.js';
import { getMessage, pageOfMessages } from '../../app/message-queries.js';
import { runScenario } from '../../app/run-scenario.js';
import { type Scenario, SCENARIO_TEXTS_ES, SCENARIOS } from '../../bank/demo-bank-scenarios.js';
import { formatOffset } from '../../domain/duration.js';
import { decodeEmail } from '../../domain/email-message.js';
import { EMAIL_KINDS } from '../../domain/message-kinds.js';
import { formatInstant } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { csrfField, errorLine } from '../payer/pages.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, frameOf, may, sendPage, sessionOf } from './layout.js';
import { eventPath, paymentPath } from './payment-page.js';
import { isRefusal, REFUSAL_STATUS, refusalText } from './refusals.js';
import { statusPill } from './statuses.js';
import { dataTable } from './table.js';
import { REQUESTS_PATH } from './requests.js';
import { DASHBOARD_PATH } from './session-cookie.js';
import { subscriptionPath } from './subscriptions.js';

const DEVELOPER_PATH = `${DASHBOARD_PATH}/developer`;
const emailPath = (id: string) => `${DEVELOPER_PATH}/emails/${id}`;
const runPath = (scenarioId: string) => `${DEVELOPER_PATH}/scenarios/${scenarioId}/run`;
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
${
  may(frame, 'developer.clock')
    ? html`<div class="actions">
<form method="post" action="${DEVELOPER_PATH}/clock/advance">${csrfField(frame.csrf)}<label for="advance">${d.advanceBy}</label><input type="text" id="advance" name="advance" required><button id="advance-clock">${d.advance}</button></form>
<form method="post" action="${DEVELOPER_PATH}/clock/reset">${csrfField(frame.csrf)}<button class="secondary" id="reset-clock">${d.reset}</button></form>
</div>`
    : ''
}`;
}

/**
 * A scenario's text, whose commands are Markdown code spans (as /sandbox/scenarios and the docs give
 * them), with each set as code: one element, so that a stacked cell runs it as one paragraph.
 */
const withCodeSpans = (text: string): Html =>
  html`<span class="text">${text.split('`').map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}</span>`;

function scenarioSection(frame: DashboardFrame, refusal?: string): Html {
  const d = frame.w.developer;
  const text = (s: Scenario) => (frame.lang === 'es' ? (SCENARIO_TEXTS_ES[s.id] ?? s) : s);
  const runs = may(frame, 'developer.scenario');
  return html`<h2>${d.scenarios}</h2>
${errorLine(refusal && `${d.runRefused} ${refusal}`)}
${dataTable(
  'scenarios',
  [{ label: d.scenario }, { label: d.trigger }, { label: d.outcome }, ...(runs ? [{ label: d.action, className: 'action' }] : [])],
  SCENARIOS.map((s) => ({
    cells: [
      html`<code>${s.id}</code>`,
      withCodeSpans(text(s).trigger),
      withCodeSpans(text(s).outcome),
      ...(runs
        ? [html`<form method="post" action="${runPath(s.id)}">${csrfField(frame.csrf)}<button class="secondary" id="run-${s.id}">${d.run}</button></form>`]
        : []),
    ],
  })),
)}`;
}

async function inboxSection(frame: DashboardFrame, request: FastifyRequest): Promise<Html> {
  const d = frame.w.developer;
  const page = await pageOfMessages(request.ctx, { receiverId: sessionOf(request).merchant.receiverId, kinds: EMAIL_KINDS, limit: INBOX_SIZE });
  return html`<section id="inbox" aria-labelledby="inbox-title"><h2 id="inbox-title">${d.inbox}</h2>
${
  page.messages.length === 0
    ? html`<p class="none">${d.noEmails}</p>`
    : dataTable(
        'inbox',
        [{ label: frame.w.events.created }, { label: d.to }, { label: d.subject }, { label: frame.w.events.status }],
        page.messages.map((message) => {
          const email = decodeEmail(message.body);
          return {
            cells: [
              when(new Date(message.created_at), frame.m),
              email.toName ? `${email.toName} <${email.to}>` : email.to,
              html`<a href="${emailPath(message.message_id)}" class="email-subject">${email.subject}</a>`,
              statusPill(frame.w, 'message', message.status),
            ],
          };
        }),
      )
}</section>`;
}

/** A refusal, shown beside the section whose form asked. */
interface Refusal {
  section: 'clock' | 'scenarios';
  text: string;
}

async function showDeveloper(request: FastifyRequest, reply: FastifyReply, status: number, refusal?: Refusal) {
  const frame = frameOf(request, reply, DEVELOPER_PATH);
  const beside = (section: Refusal['section']) => (refusal?.section === section ? refusal.text : undefined);
  return sendPage(
    reply,
    frame,
    status,
    frame.w.nav.developer,
    html`<p id="requests-link"><a href="${REQUESTS_PATH}">${frame.w.nav.requests}</a>: ${frame.w.requests.developerLink}</p>
${clockSection(frame, request, beside('clock'))}${scenarioSection(frame, beside('scenarios'))}${await inboxSection(frame, request)}`,
  );
}

/**
 * Runs a form's action and follows it to the page `work` names; a refusal (a bad duration, a
 * charge over max_amount, production accounts on the installation) renders the page again with
 * the reason beside the form.
 */
async function developerAction(request: FastifyRequest, reply: FastifyReply, section: Refusal['section'], work: () => Promise<string>) {
  const refused = developerOnly(request, reply);
  if (refused) return refused;
  let next: string;
  try {
    next = await work();
  } catch (error) {
    if (!isRefusal(error)) throw error;
    const { w } = frameOf(request, reply, DEVELOPER_PATH);
    const names = error.fields.map((f) => f.field);
    const text =
      error.kind !== 'validation'
        ? refusalText(w, error.kind, {})
        : section === 'clock'
          ? names.map((name) => w.refusals.fields[name] ?? w.developer.refusedFields(name)).join(' ')
          : w.developer.refusedFields(names.join(', '));
    return showDeveloper(request, reply, REFUSAL_STATUS[error.kind]!, { section, text: text ?? w.badRequest });
  }
  return reply.redirect(next, 303);
}

/** Runs the scenario and opens what it made: its payment, else its subscription. */
async function runAndOpen(request: FastifyRequest<{ Params: { id: string } }>): Promise<string> {
  const run = await runScenario(request.ctx, sessionOf(request).merchant, request.params.id);
  return run.payment ? paymentPath(run.payment.paymentId) : subscriptionPath(run.subscription!.subscriptionId);
}

/** The email of the inbox a page names: the signed-in account's own, else 404. */
async function accountEmail(request: FastifyRequest<{ Params: { id: string } }>) {
  const { message } = await getMessage(request.ctx, request.params.id, {
    receiverId: sessionOf(request).merchant.receiverId,
    kinds: EMAIL_KINDS,
    noun: 'Email',
  });
  return message;
}

export function developerRoutes(app: FastifyInstance): void {
  app.get(DEVELOPER_PATH, async (request, reply) => developerOnly(request, reply) ?? showDeveloper(request, reply, 200));

  const movedTo = async (move: Promise<unknown>) => {
    await move;
    return DEVELOPER_PATH;
  };
  app.post<{ Body: { advance?: string } }>(
    `${DEVELOPER_PATH}/clock/advance`,
    { preHandler: app.csrfProtection, config: { dashboardAction: 'developer.clock' } },
    async (request, reply) =>
      developerAction(request, reply, 'clock', () =>
        movedTo(moveAccountClock(request.ctx, sessionOf(request).merchant.receiverId, { advance: (request.body?.advance ?? '').trim() })),
      ),
  );
  app.post(`${DEVELOPER_PATH}/clock/reset`, { preHandler: app.csrfProtection, config: { dashboardAction: 'developer.clock' } }, async (request, reply) =>
    developerAction(request, reply, 'clock', () => movedTo(resetAccountClock(request.ctx, sessionOf(request).merchant.receiverId))),
  );

  app.post<{ Params: { id: string } }>(
    runPath(':id'),
    { preHandler: app.csrfProtection, config: { dashboardAction: 'developer.scenario' } },
    async (request, reply) => developerAction(request, reply, 'scenarios', () => runAndOpen(request)),
  );

  app.get<{ Params: { id: string } }>(emailPath(':id'), async (request, reply) => {
    const refused = developerOnly(request, reply);
    if (refused) return refused;
    const message = await accountEmail(request);
    const email = decodeEmail(message.body);
    const frame = frameOf(request, reply, emailPath(message.message_id));
    const d = frame.w.developer;
    return sendPage(
      reply,
      frame,
      200,
      email.subject,
      html`<dl><dt>${d.from}</dt><dd>${email.from}</dd><dt>${d.to}</dt><dd id="email-to">${email.toName ? `${email.toName} <${email.to}>` : email.to}</dd>
<dt>${frame.w.payments.payment}</dt><dd>${idCode(message.subject_id, paymentPath(message.subject_id))}</dd>
<dt>${frame.w.events.status}</dt><dd><a href="${eventPath(message.message_id)}">${statusPill(frame.w, 'message', message.status)}</a></dd></dl>
<iframe class="email" title="${email.subject}" sandbox src="${emailPath(message.message_id)}/html"></iframe>
<h2>${d.text}</h2><pre class="email-text">${email.text}</pre>`,
      { frames: true },
    );
  });

  app.get<{ Params: { id: string } }>(`${emailPath(':id')}/html`, async (request, reply) => {
    const refused = developerOnly(request, reply);
    if (refused) return refused;
    const message = await accountEmail(request);
    return reply
      .header('cache-control', 'no-store')
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'none'; frame-ancestors 'self'; base-uri 'none'; sandbox",
      )
      .type('text/html; charset=utf-8')
      .send(decodeEmail(message.body).html);
  });
}
