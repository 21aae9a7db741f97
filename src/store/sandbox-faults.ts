// An account's faults on demand (developer mode, domain/sandbox-faults.ts) and their counters, on
// the account's row: every process reads the setting with the account, and counts down and draws
// with one conditional UPDATE each, so two processes never take the same refusal or draw.
import { type Kysely, sql } from 'kysely';
import { type SandboxFaults, settingOf, storedFaults } from '../domain/sandbox-faults.js';
import type { DB } from './schema.js';

export interface FaultCounters {
  /** API requests still to refuse. */
  refusalsLeft: number;
  /** API requests still to answer with a dropped connection. */
  dropsLeft: number;
}

/** Sets (null: removes) an account's faults; the counters start again from the setting's counts and its first draw. */
export async function writeFaults(db: Kysely<DB>, receiverId: number, faults: SandboxFaults | null): Promise<boolean> {
  const result = await db
    .updateTable('merchants')
    .set({
      sandbox_faults: faults === null ? null : JSON.stringify(settingOf(faults)),
      faults_refusals_left: faults?.api?.count ?? 0,
      faults_drops_left: faults?.dropConnection?.count ?? 0,
      faults_draws: 0,
    })
    .where('receiver_id', '=', receiverId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** An account's faults and counters as stored now; undefined for no such account. */
export async function readFaults(db: Kysely<DB>, receiverId: number): Promise<{ faults: SandboxFaults | null; counters: FaultCounters } | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select(['sandbox_faults', 'faults_refusals_left', 'faults_drops_left'])
    .where('receiver_id', '=', receiverId)
    .executeTakeFirst();
  return (
    row && { faults: storedFaults(row.sandbox_faults), counters: { refusalsLeft: Number(row.faults_refusals_left), dropsLeft: Number(row.faults_drops_left) } }
  );
}

/** Whether DemoBank is to leave the account's transfers uncertain (developer mode; a simulated bank reads it from the account's row). */
export async function withholdsTransfers(db: Kysely<DB>, receiverId: number): Promise<boolean> {
  const row = await db.selectFrom('merchants').select('sandbox_faults').where('receiver_id', '=', receiverId).executeTakeFirst();
  return storedFaults(row?.sandbox_faults ?? null)?.bank?.transfers === 'uncertain';
}

const COUNTERS = { refusal: 'faults_refusals_left', drop: 'faults_drops_left' } as const;

/** Takes one of the account's refusals (or drops): true when one was left, which this caller alone now holds. */
export async function takeFault(db: Kysely<DB>, receiverId: number, kind: keyof typeof COUNTERS): Promise<boolean> {
  const column = COUNTERS[kind];
  const row = await db
    .updateTable('merchants')
    .set({ [column]: sql`${sql.ref(column)} - 1` })
    .where('receiver_id', '=', receiverId)
    .where(column, '>', 0)
    .returning('receiver_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Reserves `count` draws of the account's seed: the number of the first, the others following it. */
export async function reserveDraws(db: Kysely<DB>, receiverId: number, count: number): Promise<number> {
  const row = await db
    .updateTable('merchants')
    .set({ faults_draws: sql`faults_draws + ${count}` })
    .where('receiver_id', '=', receiverId)
    .returning('faults_draws')
    .executeTakeFirst();
  return row === undefined ? 0 : Number(row.faults_draws) - count;
}
