// Writing and reading the audit log (domain/audit.ts). A record is written after the action it
// records has answered, by the surface that knows who asked (the dashboard's session, the API's
// key, the operator's token, the command line): a failure to write one is logged, never turned into
// a failure of the action, which has already happened. Each record is also a line of the process
// log, which the operator ships to a separate system (docs/operations.md, Logs).
import { type AuditEntry, ChainCheck, type ChainFault } from '../domain/audit.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { appendAudit, auditHead, auditRecords, latestAuditRecords, pruneAudit } from '../store/audit-log.js';
import type { AppContext } from './context.js';

type AuditContext = Pick<AppContext, 'db' | 'clock' | 'log'>;

/** How long records are kept: more than a year, so a yearly review finds the whole year. */
export const AUDIT_RETENTION_MS = 400 * 24 * 3_600_000;

export async function audit(ctx: AuditContext, entry: Omit<AuditEntry, 'at'>): Promise<void> {
  try {
    const record = await appendAudit(ctx.db, { ...entry, at: wallClockMs(ctx.clock) });
    // A copy for the log collector: a separate system then holds every record and its hash, which
    // an intruder who rewrites the database's chain, however consistently, cannot take back.
    ctx.log.info({ audit: record }, 'audit record');
  } catch (error) {
    ctx.log.error({ err: error, audit: entry.action }, 'audit record not written');
  }
}

export async function verifyAudit(ctx: AuditContext): Promise<{ records: number; fault?: ChainFault }> {
  const check = new ChainCheck();
  for await (const record of auditRecords(ctx.db)) {
    const fault = check.next(record);
    if (fault) return { records: check.count, fault };
  }
  return { records: check.count, fault: check.end(await auditHead(ctx.db)) };
}

/** Every record in order, or an account's: the export, as JSON lines. */
export const auditTrail = (ctx: AuditContext, receiverId?: number) => auditRecords(ctx.db, receiverId);

/** An account's records, newest first, a page below `before` (a record's number). */
export const accountAuditPage = (ctx: AuditContext, receiverId: number, limit: number, before?: number) =>
  latestAuditRecords(ctx.db, receiverId, limit, before);

export async function pruneAuditLog(ctx: AuditContext): Promise<void> {
  await pruneAudit(ctx.db, wallClockMs(ctx.clock) - AUDIT_RETENTION_MS);
}
