// The account's audit log, for its owners: who did what, on what, from where and how it ended,
// newest first and paged by record number; and the same records as JSON lines to download.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { accountAuditPage, auditTrail } from '../../app/audit.js';
import { html } from '../../render/html.js';
import { when } from './dates.js';
import { idCode } from './ids.js';
import { frameOf, sendPage, sessionOf } from './layout.js';
import { statusPill } from './statuses.js';
import { dataTable } from './table.js';
import { DASHBOARD_PATH } from './session-cookie.js';

const AUDIT_PATH = `${DASHBOARD_PATH}/audit`;
const PAGE_SIZE = 100;

export function auditRoutes(app: FastifyInstance): void {
  app.get<{ Querystring: { before?: string } }>(AUDIT_PATH, { config: { dashboardAction: 'audit.read' } }, async (request, reply) => {
    const { merchant } = sessionOf(request);
    const frame = frameOf(request, reply, AUDIT_PATH);
    const a = frame.w.audit;
    const before = /^\d{1,15}$/.test(request.query.before ?? '') ? Number(request.query.before) : undefined;
    const records = await accountAuditPage(request.ctx, merchant.receiverId, PAGE_SIZE, before);
    const rows = records.map((r) => ({
      attributes: html`data-seq="${r.seq}"`,
      cells: [
        when(new Date(r.at), frame.m),
        r.actor,
        html`<code>${r.action}</code>`,
        r.target ? idCode(r.target) : '',
        html`<span class="outcome-${r.outcome}">${statusPill(frame.w, 'audit', r.outcome)}</span>`,
        r.address ?? '',
      ],
    }));
    const older = records.length === PAGE_SIZE ? html`<p><a href="${AUDIT_PATH}?before=${records.at(-1)!.seq}">${a.older}</a></p>` : '';
    return sendPage(
      reply,
      frame,
      200,
      frame.w.nav.audit,
      html`<p>${a.intro}</p><p><a href="${AUDIT_PATH}/export" download="audit.jsonl">${a.export}</a></p>
${
  records.length === 0
    ? html`<p class="notice">${a.none}</p>`
    : dataTable('audit', [{ label: a.at }, { label: a.who }, { label: a.action }, { label: a.target }, { label: a.outcome }, { label: a.from }], rows)
}
${older}`,
    );
  });

  // Streamed a page of records at a time: a year of them never sits in memory whole.
  app.get(`${AUDIT_PATH}/export`, { config: { dashboardAction: 'audit.read' } }, async (request, reply) => {
    const records = auditTrail(request.ctx, sessionOf(request).merchant.receiverId);
    const lines = Readable.from(
      (async function* () {
        for await (const record of records) yield `${JSON.stringify(record)}\n`;
      })(),
    );
    return reply
      .type('application/jsonl; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-disposition', 'attachment; filename="audit.jsonl"')
      .send(lines);
  });
}
