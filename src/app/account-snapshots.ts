// Snapshots of sandbox accounts (docs/testing-in-ci.md): a suite seeds an account once, records it,
// and restores it before each test. A snapshot holds the account's state (SNAPSHOT_RECORDS), its
// clock (merchants.clock_offset_ms) and so the schedule of its messages; a restore puts them all back
// with their own ids in one transaction, so a message due again is sent again as itself. Credentials,
// tokens, dashboard users and their sessions are not state: a restore leaves them as they are.
import type { Kysely } from 'kysely';
import { notFound, stateError } from '../domain/errors.js';
import { newUuid } from '../domain/ids.js';
import { noRoomForSnapshot, snapshotsTooLarge } from '../domain/snapshot-limits.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { ACCOUNT_ROW, deleteAccountRecords, SNAPSHOT_RECORDS } from '../store/account-records.js';
import { readAccountClock } from '../store/account-clocks.js';
import {
  accountSnapshots,
  asOfOneMoment,
  deleteSnapshot,
  findSnapshot,
  highestRowVersion,
  recordSnapshot,
  restoreSnapshotRows,
  snapshotBytes,
  type SnapshotRow,
} from '../store/account-snapshots.js';
import { wakeAccount } from '../store/account-wakes.js';
import { holdChainHead } from '../store/audit-log.js';
import { findMerchantRow } from '../store/merchants.js';
import type { DB } from '../store/schema.js';
import { inTransaction } from '../store/transaction.js';
import { type AuditActor, auditInTransaction, logAudit } from './audit.js';
import type { AppContext } from './context.js';
import { publishAccountChange, requireSandbox, sandboxAccountRow } from './sandbox-accounts.js';

export interface SnapshotSummary {
  snapshot_id: string;
  receiver_id: number;
  created_at: string;
  rows: number;
}

const summary = (row: SnapshotRow): SnapshotSummary => ({
  snapshot_id: row.snapshot_id,
  receiver_id: Number(row.receiver_id),
  created_at: new Date(Number(row.created_at)).toISOString(),
  rows: Number(row.row_count),
});

/** The account's snapshot; another account's is as unknown as one never taken. */
async function snapshotOf(db: Kysely<DB>, receiverId: number, snapshotId: string): Promise<SnapshotRow> {
  const row = await findSnapshot(db, snapshotId);
  if (!row || Number(row.receiver_id) !== receiverId) throw notFound('Snapshot');
  return row;
}

const refuse = (problem: string | undefined) => {
  if (problem !== undefined) throw stateError(problem);
};

/** Records the account's state, within the account's limits (SANDBOX_SNAPSHOTS_PER_ACCOUNT, SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT). */
export async function takeSnapshot(ctx: AppContext, receiverId: number, by: AuditActor): Promise<SnapshotSummary> {
  requireSandbox(ctx);
  const snapshot = { snapshot_id: newUuid(ctx.random), receiver_id: receiverId, created_at: wallClockMs(ctx.clocks) };
  const limits = ctx.config.snapshotLimits;
  const { rows, record } = await asOfOneMoment(ctx.db, async (trx) => {
    // Before the moment is fixed: takes line up one after another, so the limits count every
    // snapshot taken before this one, and the audit record finds the chain's head as it is.
    await holdChainHead(trx);
    await sandboxAccountRow(trx, receiverId);
    refuse(noRoomForSnapshot((await accountSnapshots(trx, receiverId)).length, limits));
    const rows = await recordSnapshot(trx, snapshot);
    refuse(snapshotsTooLarge(await snapshotBytes(trx, receiverId), limits));
    const entry = { ...by, receiverId, action: 'sandbox.snapshot.take', target: snapshot.snapshot_id, outcome: 'ok' } as const;
    return { rows, record: await auditInTransaction(ctx, trx, entry) };
  });
  logAudit(ctx, record);
  return summary({ ...snapshot, row_count: rows });
}

export async function listSnapshots(ctx: AppContext, receiverId: number): Promise<SnapshotSummary[]> {
  requireSandbox(ctx);
  await sandboxAccountRow(ctx.db, receiverId);
  return (await accountSnapshots(ctx.db, receiverId)).map(summary);
}

export async function removeSnapshot(ctx: AppContext, receiverId: number, snapshotId: string, by: AuditActor): Promise<void> {
  requireSandbox(ctx);
  const record = await inTransaction(ctx.db, async (trx) => {
    await sandboxAccountRow(trx, receiverId);
    await snapshotOf(trx, receiverId, snapshotId);
    await deleteSnapshot(trx, snapshotId);
    return auditInTransaction(ctx, trx, { ...by, receiverId, action: 'sandbox.snapshot.delete', target: snapshotId, outcome: 'ok' });
  });
  logAudit(ctx, record);
}

/**
 * Replaces the account's state with the snapshot's, in one transaction, and has every process forget
 * what it held of the account: its directory entries and its clock. The clock and the versioned rows (payments, subscriptions) take a version above any the
 * account ever had: versions only grow, so a restored row never meets a version a process already
 * holds with other content, and no process keeps an older read of the clock.
 */
export async function restoreSnapshot(ctx: AppContext, receiverId: number, snapshotId: string, by: AuditActor): Promise<SnapshotSummary> {
  requireSandbox(ctx);
  const clocks = ctx.clocks;
  const { snapshot, clock, record } = await ctx.feed.transaction(ctx.db, async (trx, publish) => {
    const before = await sandboxAccountRow(trx, receiverId);
    const snapshot = await snapshotOf(trx, receiverId, snapshotId);
    // Locked (PostgreSQL) until the restore commits: a move of the clock or another restore waits.
    const stored = (await readAccountClock(trx, receiverId, true))!;
    // Every version a row of the account had is at most the highest now or below a version written
    // by an earlier restore, which the clock's version, only ever counting up, is at least.
    const version = Math.max(stored.version, await highestRowVersion(trx, receiverId)) + 1;
    await deleteAccountRecords(
      trx,
      receiverId,
      SNAPSHOT_RECORDS.filter((records) => records !== ACCOUNT_ROW),
    );
    await restoreSnapshotRows(trx, snapshot, version);
    const after = (await findMerchantRow(trx, receiverId))!;
    await publishAccountChange(publish, before);
    // The account's work runs at once on the restored records and clock, as after a move of its clock.
    await wakeAccount(trx, receiverId);
    const record = await auditInTransaction(ctx, trx, { ...by, receiverId, action: 'sandbox.snapshot.restore', target: snapshotId, outcome: 'ok' });
    return { snapshot, clock: { offsetMs: after.clock_offset_ms === null ? null : Number(after.clock_offset_ms), version }, record };
  });
  clocks.setAccount(receiverId, clock);
  logAudit(ctx, record);
  return summary(snapshot);
}
