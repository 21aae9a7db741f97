// The jobs table: one row per recurring background job, when it is next due (developer clock) and
// which process holds it until when (wall clock). Any number of processes look for due jobs; one
// conditional UPDATE takes a job, so of all the processes that find it due at once exactly one
// gets it: on PostgreSQL the others wait for its row lock and then see the lease taken, on SQLite
// the single write lock puts the updates one after the other.
import { type Kysely, sql } from 'kysely';
import type { DB, JobRow } from './schema.js';

/** The rows of jobs that have none yet, due at `now`; those that exist are left as they are. */
export async function createJobRows(db: Kysely<DB>, names: readonly string[], now: number): Promise<void> {
  if (names.length === 0) return;
  await db
    .insertInto('jobs')
    .values(names.map((name) => ({ name, run_at: now, runs: 0 })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/**
 * Which of these jobs are due and free: a read, so that looking for work when there is none takes
 * no write lock (SQLite) and writes nothing.
 */
export async function dueJobNames(db: Kysely<DB>, names: readonly string[], now: number, wallNow: number): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await db
    .selectFrom('jobs')
    .select('name')
    .where('name', 'in', names)
    .where('run_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', wallNow)]))
    .orderBy('run_at')
    .execute();
  return rows.map((r) => r.name);
}

export interface JobClaim {
  name: string;
  /** Developer-clock milliseconds: the job must be due by then. */
  now: number;
  /** Wall-clock milliseconds: a lease that ended before this is free. */
  wallNow: number;
  leaseId: string;
  leaseUntil: number;
  /** The claiming process, for operators. */
  runner: string;
}

/** Takes the job if it is due and its lease is free; undefined when it is not (or another process took it first). */
export async function claimJob(db: Kysely<DB>, claim: JobClaim): Promise<JobRow | undefined> {
  return db
    .updateTable('jobs')
    .set({ lease_id: claim.leaseId, locked_until: claim.leaseUntil, runner: claim.runner, runs: sql<number>`runs + 1`, last_started_at: claim.now })
    .where('name', '=', claim.name)
    .where('run_at', '<=', claim.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', claim.wallNow)]))
    .returningAll()
    .executeTakeFirst();
}

/** Extends a lease still held; false when it is no longer this one (it ended and another process took the job). */
export async function renewJobLease(db: Kysely<DB>, name: string, leaseId: string, leaseUntil: number): Promise<boolean> {
  const result = await db.updateTable('jobs').set({ locked_until: leaseUntil }).where('name', '=', name).where('lease_id', '=', leaseId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface FinishedJob {
  name: string;
  leaseId: string;
  /** Developer-clock milliseconds. */
  finishedAt: number;
  nextRunAt: number;
  /** What made the run fail, if it did. */
  error: string | null;
}

/** Schedules the next run and frees the job, if the lease is still this run's; false when another process holds the job now. */
export async function finishJob(db: Kysely<DB>, run: FinishedJob): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      run_at: run.nextRunAt,
      lease_id: null,
      locked_until: null,
      last_finished_at: run.finishedAt,
      ...(run.error === null ? {} : { last_error: run.error, last_error_at: run.finishedAt }),
    })
    .where('name', '=', run.name)
    .where('lease_id', '=', run.leaseId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listJobRows(db: Kysely<DB>): Promise<JobRow[]> {
  return db.selectFrom('jobs').selectAll().orderBy('name').execute();
}
