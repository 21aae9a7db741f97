// The account's audit log, for its owners: who did what, on what, from where and how it ended,
// newest first and paged by record number; and the same records as JSON lines to download.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { accountAuditPage, auditTrail } from '../../app/audit.js';
import { formatInstant } from '../../render/format.js';
import { html } from '../../render/html.js';
import { frameOf, sendPage, sessionOf } from './layout.js';
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
    const rows = records.map(
      (r) =>
        html`<tr data-seq="${r.seq}"><td>${formatInstant(new Date(r.at), frame.m)}</td><td>${r.actor}</td><td><code>${r.action}</code></td><td><code>${r.target ?? ''}</code></td><td class="outcome-${r.outcome}">${r.outcome}</td><td>${r.address ?? ''}</td></tr>`,
    );
    const older = records.length === PAGE_SIZE ? html`<p><a href="${AUDIT_PATH}?before=${records.at(-1)!.seq}">${a.older}</a></p>` : '';
    return sendPage(
      reply,
      frame,
      200,
      frame.w.nav.audit,
      html`<p>${a.intro}</p><p><a href="${AUDIT_PATH}/export" download="audit.jsonl">${a.export}</a></p>
${records.length === 0 ? html`<p class="notice">${a.none}</p>` : html`<table class="audit"><thead><tr><th>${a.at}</th><th>${a.who}</th><th>${a.action}</th><th>${a.target}</th><th>${a.outcome}</th><th>${a.from}</th></tr></thead><tbody>${rows}</tbody></table>`}
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
