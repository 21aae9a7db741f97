// Everything Quipu sent for the account (the outbox's messages, of every kind): a list with filters
// and paging, one event with its body and every attempt, and resend. Another account's event is
// not found; a resend the message's state refuses says why and changes nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getEvent } from '../../app/event-queries.js';
import { pageOfMessages } from '../../app/message-queries.js';
import { resendMessage } from '../../app/resend-message.js';
import { DomainError } from '../../domain/errors.js';
import { MESSAGE_KIND_NAMES } from '../../domain/message-kinds.js';
import { formatInstant } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../../store/messages.js';
import { type DashboardFrame, frameOf, sendPage, sessionOf } from './layout.js';
import { eventPath, messageBlock, paymentPath } from './payment-page.js';
import { DASHBOARD_PATH } from './session-cookie.js';

const EVENTS_PATH = `${DASHBOARD_PATH}/events`;
const PAGE_SIZE = 50;

type ListQuery = { kind?: string; status?: string; cursor?: string };

const pick = <T extends string>(value: string | undefined, values: readonly T[]) =>
  (values as readonly string[]).includes(value ?? '') ? (value as T) : undefined;

function filterForm(frame: DashboardFrame, kind?: string, status?: string): Html {
  const e = frame.w.events;
  const select = (name: string, label: string, values: readonly string[], chosen?: string) =>
    html`<div><label for="${name}">${label}</label><select id="${name}" name="${name}"><option value="">${frame.w.payments.any}</option>${values.map(
      (v) => html`<option value="${v}"${v === chosen ? html` selected` : ''}>${v}</option>`,
    )}</select></div>`;
  return html`<form method="get" action="${EVENTS_PATH}" class="filters">${select('kind', e.kind, MESSAGE_KIND_NAMES, kind)}${select('status', e.status, MESSAGE_STATUSES, status)}<div><button>${frame.w.payments.filter}</button></div></form>`;
}

/** Where a resend returns: a dashboard page, never another site. */
const backPath = (back: string | undefined, fallback: string) => (back && /^\/dashboard\/[\w/-]*$/.test(back) ? back : fallback);

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
    `${message.kind} · ${message.subject_id}`,
    html`${notice ?? ''}
${message.subject_type === 'payment' ? html`<p><a href="${paymentPath(message.subject_id)}">${frame.w.payments.payment} ${message.subject_id}</a></p>` : ''}
${messageBlock(frame, message, attempts, path)}
<h2>${e.body}</h2>
<p><code>${message.content_type}</code></p>
<pre class="body">${message.body}</pre>`,
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
    : html`<table class="events"><thead><tr><th>${e.created}</th><th>${e.kind}</th><th>ID</th><th>${e.destination}</th><th>${e.status}</th><th class="number">${e.attempts}</th></tr></thead><tbody>
${page.messages.map(
  (m) =>
    html`<tr data-message-id="${m.message_id}"><td>${formatInstant(new Date(m.created_at), frame.m)}</td><td><a href="${eventPath(m.message_id)}">${m.kind}</a></td><td><code>${m.subject_id}</code></td><td>${m.url}</td><td>${m.status}</td><td class="number">${m.attempts}</td></tr>`,
)}</tbody></table>`
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
        return showEvent(
          request,
          reply,
          409,
          html`<p class="error" role="status" id="notice">${frameOf(request, reply, '').w.payments.refused} ${error.message}</p>`,
        );
      }
      return reply.redirect(`${backPath(request.body?.back, eventPath(request.params.id))}?done=resend`, 303);
    },
  );
}
