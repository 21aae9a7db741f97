// Everything Quipu sent for the account (the outbox's messages, of every kind): a list with filters
// and paging, one event with its body and every attempt with the exact headers it was sent with
// (the events API's view), resend, and "send to another URL": once, confirmed first, the outcome
// shown as an attempt marked with that URL. Another account's event is not found; a resend the
// message's state refuses says why and changes nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type EventDetail, getEvent } from '../../app/event-queries.js';
import { pageOfMessages } from '../../app/message-queries.js';
import { resendMessage } from '../../app/resend-message.js';
import { checkNotifiableUrl, sendEventTo } from '../../app/send-at-once.js';
import { eventDetailView } from '../../delivery/event-view.js';
import type { Transport } from '../../delivery/transport.js';
import { DomainError } from '../../domain/errors.js';
import { isWebUrl } from '../../domain/formats.js';
import { kindRule, MESSAGE_KIND_NAMES } from '../../domain/message-kinds.js';
import { SIGNATURE_HEADER } from '../../domain/notification-signature.js';
import { type Html, html } from '../../render/html.js';
import { prettyJson } from '../../render/pretty-json.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../../store/messages.js';
import type { MessageAttemptRow } from '../../store/schema.js';
import { csrfField } from '../payer/pages.js';
import { confirmationContent } from './confirm.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, frameOf, may, sendPage, sessionOf } from './layout.js';
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

/** Every attempt's request as it was sent: its URL and each header, the signature among them (the newest open). */
function requestsBlock(frame: DashboardFrame, detail: EventDetail): Html {
  const e = frame.w.events;
  const log = eventDetailView(detail.message, detail.attempts, detail.secret).attempt_log;
  if (log.length === 0 || log[0]!.headers === null) return html``;
  return html`<h2>${e.requests}</h2>
${log.map(
  (
    a,
    i,
  ) => html`<details class="request" data-attempt="${a.number}"${i === log.length - 1 ? html` open` : ''}><summary>${e.request(a.number, a.sent_to)}</summary>
<table class="headers"><thead><tr><th scope="col">${e.header}</th><th scope="col">${e.value}</th></tr></thead><tbody>${Object.entries(a.headers ?? {}).map(
    ([name, value]) =>
      html`<tr><th scope="row"><code>${name}</code></th><td><code class="header-value" data-copy="${value}" data-header="${name}">${value}</code></td></tr>`,
  )}</tbody></table>
${a.headers?.[SIGNATURE_HEADER] ? html`<p class="hint">${e.signature}</p>` : ''}</details>`,
)}`;
}

interface SendToView {
  /** The URL typed, shown again after a refusal. */
  url?: string;
  /** Why it was refused, in the page's words. */
  error?: string;
}

/** The form that asks where to send the event once: a GET to the confirmation page. */
function sendToForm(frame: DashboardFrame, messageId: string, view: SendToView): Html {
  const e = frame.w.events;
  const invalid = view.error ? html` aria-invalid="true" aria-describedby="send-to-error"` : '';
  return html`<h2>${e.sendTo}</h2>
<form method="get" action="${eventPath(messageId)}/send-to" class="send-to"><label for="send-to-url">${e.sendToUrl}</label><input type="url" id="send-to-url" name="url" required placeholder="https://" value="${view.url ?? ''}"${invalid}>${
    view.error ? html`<p class="error" id="send-to-error">${view.error}</p>` : ''
  }<button class="secondary" id="send-to">${e.sendToButton}</button></form>`;
}

type OutcomeWords = (url: string, ok: boolean, detail: string, ms: number) => string;

/** What an attempt the user waited for came to, said at the top of the page: status, latency, error. */
export function outcomeNotice(words: OutcomeWords, url: string, a: MessageAttemptRow, link?: Html): Html {
  const ok = a.outcome === 'delivered';
  const text = words(url, ok, a.status_code !== null ? `HTTP ${a.status_code}` : (a.error ?? ''), a.latency_ms);
  return html`<p class="${ok ? 'notice' : 'error'}" role="${ok ? 'status' : 'alert'}" id="notice">${text}${link ? html` ${link}` : ''}</p>`;
}

/** What an attempt sent to another URL came to, from the redirect after it (`sent`: its number). */
function sentNotice(frame: DashboardFrame, detail: EventDetail, sent: string | undefined): Html | undefined {
  const a = detail.attempts.find((attempt) => String(attempt.number) === sent && attempt.url !== null);
  return a && outcomeNotice(frame.w.events.sentOutcome, a.url!, a);
}

async function showEvent(
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
  status: number,
  view: { notice?: Html; sent?: string; sendTo?: SendToView } = {},
) {
  const { merchant } = sessionOf(request);
  const path = eventPath(request.params.id);
  const frame = frameOf(request, reply, path);
  const detail = await getEvent(request.ctx, request.params.id, merchant.receiverId);
  const { message, attempts } = detail;
  const e = frame.w.events;
  const sendable = kindRule(message.kind)?.channel === 'http' && may(frame, 'message.send-to');
  return sendPage(
    reply,
    frame,
    status,
    `${e.event} ${message.kind}`,
    html`${view.notice ?? sentNotice(frame, detail, view.sent) ?? ''}
${message.subject_type === 'payment' ? html`<p>${frame.w.payments.payment} ${idCode(message.subject_id, paymentPath(message.subject_id))}</p>` : ''}
${messageBlock(frame, message, attempts, path)}
${sendable ? sendToForm(frame, message.message_id, view.sendTo ?? {}) : ''}
<h2>${e.body}</h2>
<p><code>${message.content_type}</code></p>
${bodyBlock(message.content_type, message.body)}
${requestsBlock(frame, detail)}`,
  );
}

/** A URL refused for the event's account: the event's page again, the field marked and the reason in its words. */
function refusedUrl(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, url: string) {
  const errors = frameOf(request, reply, '').w.events.sendToErrors;
  return showEvent(request, reply, 400, { sendTo: { url, error: isWebUrl(url) ? errors.refused : errors.url } });
}

const isValidation = (error: unknown): error is DomainError => error instanceof DomainError && error.kind === 'validation';

/** A refusal of the event's state (409): the event's page again, saying why in its language. */
function refusedState(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, kind: 'state' | 'conflict') {
  const { w } = frameOf(request, reply, '');
  return showEvent(request, reply, 409, { notice: html`<p class="error" role="alert" id="notice">${w.payments.refused} ${refusalText(w, kind, {})}</p>` });
}

/** `transport` sends what this process sends itself (send to another URL). */
export function eventRoutes(app: FastifyInstance, transport: Transport): void {
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

  app.get<{ Params: { id: string }; Querystring: { done?: string; sent?: string } }>(eventPath(':id'), async (request, reply) => {
    const done = request.query.done === 'resend' ? frameOf(request, reply, '').w.payments.done.resend : undefined;
    return showEvent(request, reply, 200, {
      notice: done ? html`<p class="notice" role="status" id="notice">${done}</p>` : undefined,
      sent: request.query.sent,
    });
  });

  // The confirmation: where the event goes, said before anything leaves; a URL the account may not use is refused here already.
  app.get<{ Params: { id: string }; Querystring: { url?: string } }>(`${eventPath(':id')}/send-to`, async (request, reply) => {
    const { merchant } = sessionOf(request);
    const url = (request.query.url ?? '').trim();
    const { message } = await getEvent(request.ctx, request.params.id, merchant.receiverId);
    // An event that does not travel over HTTP (an email) has no URL to send it to instead.
    if (kindRule(message.kind)?.channel !== 'http') return refusedState(request, reply, 'state');
    try {
      checkNotifiableUrl(request.ctx, merchant, 'url', url);
    } catch (error) {
      if (!isValidation(error)) throw error;
      return refusedUrl(request, reply, url);
    }
    const path = eventPath(message.message_id);
    const frame = frameOf(request, reply, `${path}/send-to?${new URLSearchParams({ url }).toString()}`);
    const e = frame.w.events;
    return sendPage(
      reply,
      frame,
      200,
      e.sendToQuestion(url),
      confirmationContent(frame, {
        details: html`<p>${e.sendToDetails}</p><p><code>${message.kind}</code> → <span class="destination">${url}</span></p>`,
        action: `${path}/send-to`,
        button: e.sendToConfirm,
        back: path,
        fields: html`<input type="hidden" name="url" value="${url}">`,
      }),
    );
  });

  app.post<{ Params: { id: string }; Body: { url?: string } }>(
    `${eventPath(':id')}/send-to`,
    { preHandler: app.csrfProtection, config: { dashboardAction: 'message.send-to' } },
    async (request, reply) => {
      const { merchant } = sessionOf(request);
      const url = (request.body?.url ?? '').trim();
      try {
        const attempt = await sendEventTo(request.ctx, transport, request.params.id, url, merchant.receiverId);
        return reply.redirect(`${eventPath(request.params.id)}?sent=${attempt.number}`, 303);
      } catch (error) {
        if (isValidation(error)) return refusedUrl(request, reply, url);
        if (!(error instanceof DomainError) || error.kind !== 'state') throw error;
        return refusedState(request, reply, 'state');
      }
    },
  );

  app.post<{ Params: { id: string }; Body: { back?: string } }>(
    `${eventPath(':id')}/resend`,
    { preHandler: app.csrfProtection, config: { dashboardAction: 'message.resend' } },
    async (request, reply) => {
      const { merchant } = sessionOf(request);
      try {
        await resendMessage(request.ctx, request.params.id, { receiverId: merchant.receiverId, noun: 'Event' });
      } catch (error) {
        if (!(error instanceof DomainError) || (error.kind !== 'state' && error.kind !== 'conflict')) throw error;
        return refusedState(request, reply, error.kind);
      }
      return reply.redirect(`${backPath(request.body?.back, eventPath(request.params.id))}?done=resend`, 303);
    },
  );
}
