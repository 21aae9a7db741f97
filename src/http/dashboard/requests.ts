// The account's request log (app/request-records.ts), like Stripe's: its latest API requests, newest
// first, with their method, path, status, duration and, at a glance, the fields the API ignored (a
// misspelled `notifyurl` is answered 200 and does nothing else); filters for errors and for ignored
// fields; each request's page with its error answer laid out. Another account's request is not found.
// Where the installation sends the log to its log stream, or keeps none, the page says so.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { getRequestLog, requestLogPage } from '../../app/request-log-queries.js';
import { type Html, html } from '../../render/html.js';
import { prettyJson } from '../../render/pretty-json.js';
import type { RequestLogRow } from '../../store/schema.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, frameOf, sendPage, sessionOf } from './layout.js';
import { DASHBOARD_PATH } from './session-cookie.js';
import { httpStatusPill, warningPill } from './statuses.js';
import { dataTable } from './table.js';

export const REQUESTS_PATH = `${DASHBOARD_PATH}/requests`;
const requestPath = (id: number) => `${REQUESTS_PATH}/${id}`;
const PAGE_SIZE = 50;
/** Beyond this the list's pill is cut; the request's page and the tooltip hold every name. */
const PILL_CHARS = 60;

const SHOWN = ['errors', 'ignored'] as const;
type Shown = (typeof SHOWN)[number];

type ListQuery = { show?: string; before?: string };

const shownOf = (value: string | undefined): Shown | undefined => SHOWN.find((s) => s === value);
const beforeOf = (value: string | undefined): number | undefined => (value && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : undefined);

function ignoredPill(frame: DashboardFrame, ignored: string): Html {
  const names = ignored.length > PILL_CHARS ? `${ignored.slice(0, PILL_CHARS)}…` : ignored;
  return warningPill(frame.w.requests.ignoredPill(names), ignored);
}

function filterForm(frame: DashboardFrame, shown: Shown | undefined): Html {
  const r = frame.w.requests;
  const option = (value: string, label: string) => html`<option value="${value}"${value === (shown ?? '') ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="${REQUESTS_PATH}" class="filters"><div><label for="show">${r.show}</label><select id="show" name="show">${option('', r.all)}${option('errors', r.errors)}${option('ignored', r.ignored)}</select></div><div><button>${frame.w.payments.filter}</button></div></form>`;
}

function requestTable(frame: DashboardFrame, rows: readonly RequestLogRow[]): Html {
  const r = frame.w.requests;
  return dataTable(
    'requests',
    [
      { label: r.at },
      { label: r.method },
      { label: r.path, className: 'path' },
      { label: r.status },
      { label: r.duration, className: 'number' },
      { label: r.ignoredFields },
    ],
    rows.map((row) => ({
      attributes: html`data-request-log-id="${row.request_log_id}"`,
      cells: [
        when(new Date(Number(row.at)), frame.m),
        html`<code>${row.method}</code>`,
        html`<a href="${requestPath(Number(row.request_log_id))}"><code>${row.path}</code></a>`,
        httpStatusPill(row.status),
        `${row.duration_ms} ms`,
        row.ignored_fields === null ? '' : ignoredPill(frame, row.ignored_fields),
      ],
    })),
  );
}

async function showList(request: FastifyRequest<{ Querystring: ListQuery }>, reply: FastifyReply) {
  const { merchant } = sessionOf(request);
  const shown = shownOf(request.query.show);
  const frame = frameOf(request, reply, shown ? `${REQUESTS_PATH}?show=${shown}` : REQUESTS_PATH);
  const r = frame.w.requests;
  const { store, kept } = request.ctx.requestRecords;
  if (!kept) return sendPage(reply, frame, 200, frame.w.nav.requests, html`<p id="requests-elsewhere">${store === 'log' ? r.logStream : r.off}</p>`);
  const page = await requestLogPage(kept, merchant.receiverId, {
    errors: shown === 'errors',
    ignored: shown === 'ignored',
    before: beforeOf(request.query.before),
    limit: PAGE_SIZE,
  });
  const next = new URLSearchParams({ ...(shown ? { show: shown } : {}), before: String(page.nextBefore) });
  return sendPage(
    reply,
    frame,
    200,
    frame.w.nav.requests,
    html`<p>${r.intro(request.ctx.config.requestLogRetentionDays)}</p>
${filterForm(frame, shown)}
${page.rows.length === 0 ? html`<p class="none">${r.none}</p>` : requestTable(frame, page.rows)}
${page.nextBefore === null ? '' : html`<p><a href="${REQUESTS_PATH}?${next.toString()}" id="older">${r.older}</a></p>`}`,
  );
}

/** An error answer laid out when it is JSON (cut at 4 KB it may not be: then as it is). */
const errorBlock = (body: string): Html => html`<pre class="body json" tabindex="0">${prettyJson(body)}</pre>`;

async function showRequest(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const { merchant } = sessionOf(request);
  const row = await getRequestLog(request.ctx.requestRecords, merchant.receiverId, Number(request.params.id));
  const frame = frameOf(request, reply, requestPath(Number(row.request_log_id)));
  const r = frame.w.requests;
  return sendPage(
    reply,
    frame,
    200,
    `${row.method} ${row.path}`,
    html`<p><a href="${REQUESTS_PATH}">${r.back}</a></p>
<dl class="request-log">
<dt>${r.at}</dt><dd>${when(new Date(Number(row.at)), frame.m)}</dd>
<dt>${r.method}</dt><dd><code>${row.method}</code></dd>
<dt>${r.path}</dt><dd class="path"><code>${row.path}</code></dd>
<dt>${r.status}</dt><dd id="request-status">${httpStatusPill(row.status)}</dd>
<dt>${r.duration}</dt><dd>${row.duration_ms} ms</dd>
<dt>${r.requestId}</dt><dd>${idCode(row.request_id)}</dd>
<dt>${r.ignoredFields}</dt><dd id="request-ignored">${row.ignored_fields === null ? r.noIgnored : ignoredPill(frame, row.ignored_fields)}</dd>
</dl>
${row.ignored_fields === null ? '' : html`<p class="notice" id="ignored-help">${r.ignoredHelp}</p>`}
${row.error_body === null ? '' : html`<h2>${r.errorBody}</h2>${errorBlock(row.error_body)}`}`,
  );
}

export function requestLogRoutes(app: FastifyInstance): void {
  app.get<{ Querystring: ListQuery }>(REQUESTS_PATH, showList);
  app.get<{ Params: { id: string } }>(`${REQUESTS_PATH}/:id`, showRequest);
}
