// Everything Quipu sent for the account (the outbox's messages, of every kind): a list with filters
// and paging, one event with its body and every attempt, and resend. Another account's event is
// not found; a resend the message's state refuses says why and changes nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getEvent } from '../../app/event-queries.js';
import { pageOfMessages } from '../../app/message-queries.js';
import { resendMessage } from '../../app/resend-message.js';
import { DomainError } from '../../domain/errors.js';
import { MESSAGE_KIND_NAMES } from '../../domain/message-kinds.js';
import { type Html, html } from '../../render/html.js';
import { prettyJson } from '../../render/pretty-json.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../../store/messages.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, frameOf, sendPage, sessionOf } from './layout.js';
import { eventPath, messageBlock, paymentPath } from './payment-page.js';
import { refusalText } from './refusals.js';
import { statusPill } from './statuses.js';
import { dataTable } from './table.js';
import { DASHBOARD_PATH } from './session-cookie.js';

const EVENTS_PATH = `${DASHBOARD_PATH}/events`;
const PAGE_SIZE = 50;

type ListQuery = { kind?: string; status?: string; cursor?: string };

const pick = <T extends string>(value: string | undefined, values: readonly T[]) =>
  (values as readonly string[]).includes(value ?? '') ? (value as T) : undefined;

/** Kinds are the API's names (payment.notification.3.0); statuses are words of the page's language. */
function filterForm(frame: DashboardFrame, kind?: string, status?: string): Html {
  const e = frame.w.events;
  const select = (name: string, label: string, values: readonly string[], word: (value: string) => string, chosen?: string) =>
    html`<div><label for="${name}">${label}</label><select id="${name}" name="${name}"><option value="">${frame.w.payments.any}</option>${values.map(
      (v) => html`<option value="${v}"${v === chosen ? html` selected` : ''}>${word(v)}</option>`,
    )}</select></div>`;
  return html`<form method="get" action="${EVENTS_PATH}" class="filters">${select('kind', e.kind, MESSAGE_KIND_NAMES, (v) => v, kind)}${select('status', e.status, MESSAGE_STATUSES, (v) => frame.w.statuses.message[v] ?? v, status)}<div><button>${frame.w.payments.filter}</button></div></form>`;
}

/** Where a resend returns: a dashboard page, never another site. */
const backPath = (back: string | undefined, fallback: string) => (back && /^\/dashboard\/[\w/-]*$/.test(back) ? back : fallback);

/** A JSON body indented (its values exactly as sent); any other body as it is. */
const bodyBlock = (contentType: string, body: string): Html =>
  /^application\/([\w.+-]+\+)?json\b/.test(contentType)
    ? html`<pre class="body json" tabindex="0">${prettyJson(body)}</pre>`
    : html`<pre class="body">${body}</pre>`;

async function showEvent(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, status: number, notice?: Html) {
  const { merchant } = sessionOf(request);
  const path = eventPath(request.params.id);
  const frame = frameOf(request, reply, path);
  const { message, attempts } = await getEvent(request.ctx, request.params.id, merchant.receiverId);
  const e = frame.w.events;
  return sendPage(
    reply,
    frame,
    status,
    `${e.event} ${message.kind}`,
    html`${notice ?? ''}
${message.subject_type === 'payment' ? html`<p>${frame.w.payments.payment} ${idCode(message.subject_id, paymentPath(message.subject_id))}</p>` : ''}
${messageBlock(frame, message, attempts, path)}
<h2>${e.body}</h2>
<p><code>${message.content_type}</code></p>
${bodyBlock(message.content_type, message.body)}`,
  );
}

export function eventRoutes(app: FastifyInstance): void {
  app.get<{ Querystring: ListQuery }>(EVENTS_PATH, async (request, reply) => {
    const { merchant } = sessionOf(request);
    const frame = frameOf(request, reply, EVENTS_PATH);
    const kind = pick(request.query.kind, MESSAGE_KIND_NAMES);
    const status = pick<MessageStatus>(request.query.status, MESSAGE_STATUSES);
    const page = await pageOfMessages(request.ctx, {
      receiverId: merchant.receiverId,
      kinds: kind ? [kind] : undefined,
      status,
      cursor: request.query.cursor || undefined,
      limit: PAGE_SIZE,
    });
    const e = frame.w.events;
    const next = new URLSearchParams({ ...(kind ? { kind } : {}), ...(status ? { status } : {}), cursor: page.nextCursor ?? '' });
    return sendPage(
      reply,
      frame,
      200,
      frame.w.nav.events,
      html`${filterForm(frame, kind, status)}
${
  page.messages.length === 0
    ? html`<p class="none">${e.none}</p>`
    : dataTable(
        'events',
        [{ label: e.created }, { label: e.kind }, { label: 'ID' }, { label: e.destination }, { label: e.status }, { label: e.attempts, className: 'number' }],
        page.messages.map((m) => ({
          attributes: html`data-message-id="${m.message_id}"`,
          cells: [
            when(new Date(m.created_at), frame.m),
            html`<a href="${eventPath(m.message_id)}"><code>${m.kind}</code></a>`,
            idCode(m.subject_id),
            m.url,
            statusPill(frame.w, 'message', m.status),
            m.attempts,
          ],
        })),
      )
}
${page.nextCursor ? html`<p><a href="${EVENTS_PATH}?${next.toString()}" id="next">${frame.w.payments.next}</a></p>` : ''}`,
    );
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(eventPath(':id'), async (request, reply) => {
    const done = request.query.done === 'resend' ? frameOf(request, reply, '').w.payments.done.resend : undefined;
    return showEvent(request, reply, 200, done ? html`<p class="notice" role="status" id="notice">${done}</p>` : undefined);
  });

  app.post<{ Params: { id: string }; Body: { back?: string } }>(
    `${eventPath(':id')}/resend`,
    { preHandler: app.csrfProtection, config: { dashboardAction: 'message.resend' } },
    async (request, reply) => {
      const { merchant } = sessionOf(request);
      try {
        await resendMessage(request.ctx, request.params.id, { receiverId: merchant.receiverId, noun: 'Event' });
      } catch (error) {
        if (!(error instanceof DomainError) || (error.kind !== 'state' && error.kind !== 'conflict')) throw error;
        const { w } = frameOf(request, reply, '');
        return showEvent(request, reply, 409, html`<p class="error" role="alert" id="notice">${w.payments.refused} ${refusalText(w, error.kind, {})}</p>`);
      }
      return reply.redirect(`${backPath(request.body?.back, eventPath(request.params.id))}?done=resend`, 303);
    },
  );
}
