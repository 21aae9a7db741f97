// Writing and reading the audit log (domain/audit.ts). A record is written after the action it
// records has answered, by the surface that knows who asked (the dashboard's session, the API's
// key, the operator's token, the command line): a failure to write one is logged, never turned into
// a failure of the action, which has already happened. The sandbox's actions are the exception: each
// record is appended in the action's own transaction (auditInTransaction), so there is no such action
// without its record. Each record is also a line of the process log, which the operator ships to a
// separate system (docs/operations.md, Logs).
import type { Kysely } from 'kysely';
import { anchorFault, type AuditEntry, type AuditRecord, ChainCheck, type ChainFault } from '../domain/audit.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { appendAudit, auditAnchor, auditHead, auditRecords, latestAuditRecords, pruneAudit } from '../store/audit-log.js';
import type { DB } from '../store/schema.js';
import type { AppContext } from './context.js';

type AuditContext = Pick<AppContext, 'db' | 'clock' | 'log'>;

/** How long records are kept: more than a year, so a yearly review finds the whole year. */
export const AUDIT_RETENTION_MS = 400 * 24 * 3_600_000;

/** Who asked for an action, as its audit record names them. */
export type AuditActor = Pick<AuditEntry, 'actorKind' | 'actor' | 'address'>;

export async function audit(ctx: AuditContext, entry: Omit<AuditEntry, 'at'>): Promise<void> {
  try {
    logAudit(ctx, await appendAudit(ctx.db, { ...entry, at: wallClockMs(ctx.clock) }));
  } catch (error) {
    ctx.log.error({ err: error, audit: entry.action }, 'audit record not written');
  }
}

/**
 * The action's record appended in the action's own transaction `trx`: both commit, or neither. Its
 * copy goes to the log (logAudit) once that transaction has committed: one logged before could name
 * a record that a rollback took back, and whose number the next record then takes.
 */
export async function auditInTransaction(ctx: AuditContext, trx: Kysely<DB>, entry: Omit<AuditEntry, 'at'>): Promise<AuditRecord> {
  return appendAudit(trx, { ...entry, at: wallClockMs(ctx.clock) });
}

/**
 * A copy of a committed record for the log collector: a separate system then holds every record and
 * its hash, which an intruder who rewrites the database's chain, however consistently, cannot take back.
 */
export function logAudit(ctx: Pick<AppContext, 'log'>, record: AuditRecord): void {
  ctx.log.info({ audit: record }, 'audit record');
}

/**
 * The chain from where the last prune cut it (or its genesis) to its head: the first fault, if any,
 * and the cut (records dated before it were pruned).
 */
export async function verifyAudit(ctx: AuditContext): Promise<{ records: number; prunedBefore?: number; fault?: ChainFault }> {
  const anchor = await auditAnchor(ctx.db);
  const prunedBefore = anchor?.cut;
  const cutFault = anchor && anchorFault(anchor, wallClockMs(ctx.clock) - AUDIT_RETENTION_MS);
  if (cutFault) return { records: 0, prunedBefore, fault: cutFault };
  const check = new ChainCheck(anchor);
  for await (const record of auditRecords(ctx.db)) {
    const fault = check.next(record);
    if (fault) return { records: check.count, prunedBefore, fault };
  }
  return { records: check.count, prunedBefore, fault: check.end(await auditHead(ctx.db)) };
}

/** Every record in order, or an account's: the export, as JSON lines. */
export const auditTrail = (ctx: AuditContext, receiverId?: number) => auditRecords(ctx.db, receiverId);

/** An account's records, newest first, a page below `before` (a record's number). */
export const accountAuditPage = (ctx: AuditContext, receiverId: number, limit: number, before?: number) =>
  latestAuditRecords(ctx.db, receiverId, limit, before);

export async function pruneAuditLog(ctx: AuditContext): Promise<void> {
  await pruneAudit(ctx.db, wallClockMs(ctx.clock) - AUDIT_RETENTION_MS);
}
