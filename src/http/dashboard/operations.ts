// The account's operations (descriptors run at a bank): a list newest first, paged by cursor, with
// what each descriptor says of the transfer; and one operation with its result as the SDKs return
// it, its events, the messages sent about it (with resend, as on a payment's page) and, in
// developer mode, the descriptor's decrypted content. Every descriptor value is merchant- or
// payer-provided: it goes through the escaping template and is never made a link.
import type { FastifyInstance } from 'fastify';
import { getOperationHistory, type OperationHistory } from '../../app/operation-history.js';
import { type ListedOperation, listOperationsPage } from '../../app/operation-list.js';
import { findBank } from '../../domain/banks.js';
import { descriptorAmount } from '../../domain/operation.js';
import { formatMoney } from '../../render/format.js';
import { type Html, html } from '../../render/html.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { type DashboardFrame, frameOf, sendPage, sessionOf } from './layout.js';
import { fieldRow, fieldValue, messageBlock } from './payment-page.js';
import { statusPill } from './statuses.js';
import { dataTable } from './table.js';
import { DASHBOARD_PATH } from './session-cookie.js';

const OPERATIONS_PATH = `${DASHBOARD_PATH}/operations`;
const detailPath = (operationId: string) => `${OPERATIONS_PATH}/${operationId}`;
const PAGE_SIZE = 50;

function table(frame: DashboardFrame, operations: readonly ListedOperation[]): Html {
  const { m, w } = frame;
  const o = w.operations;
  if (operations.length === 0) return html`<p class="none">${o.none}</p>`;
  return dataTable(
    'operations',
    [
      { label: 'ID' },
      { label: o.bank },
      { label: m.amount, className: 'number' },
      { label: m.operation.target },
      { label: o.result },
      { label: w.payments.created },
      { label: o.expires },
    ],
    operations.map(({ operation, content, result }) => {
      const money = content && descriptorAmount(content.params);
      const target = content && [content.params.target_account_name, content.params.target_account_number].filter(Boolean).join(' · ');
      return {
        attributes: html`data-operation-id="${operation.operationId}"`,
        cells: [
          idCode(operation.operationId, detailPath(operation.operationId)),
          findBank(operation.bank, true)?.name ?? operation.bank,
          html`<span class="amount">${content ? (money ? formatMoney(money.amount, money.currency, m) : '—') : o.unreadable}</span>`,
          html`<span class="target">${content ? target || '—' : o.unreadable}</span>`,
          html`<span class="result" title="${operation.state}">${statusPill(w, 'operation', result.result)}</span>`,
          when(operation.createdAt, m),
          when(operation.expiresAt, m),
        ],
      };
    }),
  );
}

function descriptorSection(frame: DashboardFrame, descriptor: NonNullable<OperationHistory['descriptor']>): Html {
  const { params, ...rest } = descriptor;
  return html`<dl class="descriptor">${Object.entries(rest).map(([name, value]) => fieldRow(name, value))}
${Object.entries(params).map(([name, value]) => html`<dt>params.${name}</dt><dd data-param="${name}">${fieldValue(value)}</dd>`)}</dl>`;
}

function operationPage(frame: DashboardFrame, history: OperationHistory, developer: boolean, notice?: string): Html {
  const { m, w } = frame;
  const { events, ...fields } = history.result;
  const path = detailPath(history.result.operationId);
  return html`${notice ? html`<p class="notice" role="status" id="notice">${notice}</p>` : ''}
<p class="amount"><span id="result">${statusPill(w, 'operation', history.result.result)}</span></p>
<dl class="fields">${Object.entries(fields).map(([name, value]) => fieldRow(name, value))}</dl>
<h2>${w.operations.events}</h2>
<ol class="timeline">${events.map((e) => html`<li class="${e.type}">${when(new Date(e.timestamp), m)}<code>${e.name}</code></li>`)}</ol>
<h2>${w.payments.messages}</h2>
${history.messages.length === 0 ? html`<p class="none">${w.operations.noMessages}</p>` : history.messages.map(({ message, attempts }) => messageBlock(frame, message, attempts, path))}
${developer ? html`<h2>${w.operations.descriptor}</h2>${history.descriptor ? descriptorSection(frame, history.descriptor) : html`<p class="none">${w.operations.descriptorGone}</p>`}` : ''}`;
}

export function operationRoutes(app: FastifyInstance): void {
  app.get<{ Querystring: { cursor?: string } }>(OPERATIONS_PATH, async (request, reply) => {
    const frame = frameOf(request, reply, OPERATIONS_PATH);
    const page = await listOperationsPage(request.ctx, sessionOf(request).merchant, { cursor: request.query.cursor || undefined, limit: PAGE_SIZE });
    const next = page.nextCursor && `${OPERATIONS_PATH}?${new URLSearchParams({ cursor: page.nextCursor })}`;
    return sendPage(
      reply,
      frame,
      200,
      frame.w.nav.operations,
      html`${table(frame, page.operations)}${next ? html`<p><a href="${next}" id="next">${frame.w.payments.next}</a></p>` : ''}`,
    );
  });

  // A message's resend (on the events' route) comes back here with ?done=resend.
  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(detailPath(':id'), async (request, reply) => {
    const { merchant } = sessionOf(request);
    const frame = frameOf(request, reply, detailPath(request.params.id));
    const developer = request.ctx.config.sandbox && merchant.developer;
    const history = await getOperationHistory(request.ctx, merchant, request.params.id, { developer });
    const notice = request.query.done === 'resend' ? frame.w.payments.done.resend : undefined;
    return sendPage(reply, frame, 200, `${frame.w.operations.operation} ${history.result.operationId}`, operationPage(frame, history, developer, notice));
  });
}
