// Where each background job stands, for operators (`quipu jobs list`): the table's jobs with what
// their rows say. A job without a row has never been taken: its row is made, due at once, when the
// first process that runs jobs starts.
import type { AppContext } from '../app/context.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { listJobRows } from '../store/jobs.js';
import { JOBS } from './jobs.js';

export interface JobStatus {
  name: string;
  interval_ms: number;
  /** ISO 8601 on the developer clock; null until a process that runs jobs has started. */
  next_run_at: string | null;
  /** A process holds the job's lease now. */
  running: boolean;
  /** The process (host:pid) that runs it, or ran it last. */
  runner: string | null;
  runs: number;
  last_started_at: string | null;
  last_finished_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export async function jobStatuses(ctx: AppContext): Promise<JobStatus[]> {
  const rows = new Map((await listJobRows(ctx.db)).map((row) => [row.name, row]));
  const wallNow = wallClockMs(ctx.clock);
  return JOBS.map((job) => {
    const row = rows.get(job.name);
    return {
      name: job.name,
      interval_ms: job.everyMs,
      next_run_at: iso(row?.run_at),
      running: row?.locked_until != null && row.locked_until >= wallNow,
      runner: row?.runner ?? null,
      runs: row?.runs ?? 0,
      last_started_at: iso(row?.last_started_at),
      last_finished_at: iso(row?.last_finished_at),
      last_error: row?.last_error ?? null,
      last_error_at: iso(row?.last_error_at),
    };
  });
}
