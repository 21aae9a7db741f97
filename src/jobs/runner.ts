// The background jobs of a long-running process (`quipu serve` unless RUN_WORKER=false, and
// `quipu worker`). Every JOBS_POLL_MS it looks for jobs of the table that are due on the developer
// clock and free, takes each with one conditional UPDATE (store/jobs.ts) and runs it, so that
// however many processes share the database, each run happens in one of them. A run holds its job
// for JOB_LEASE_MS of wall time and renews that lease while it runs: a long run is never taken over
// meanwhile, and the job of a process that died mid-run is free again once its lease ends. A run
// that finishes, failed or not, makes its job due `everyMs` later on the developer clock, so moving
// that clock forward makes each job due once, however many intervals the move skips. In developer
// mode it also runs the per-account jobs for each account woken by a move of its own clock (or a
// restore of its snapshot): that account's work alone, at once, holding the account's wake with a
// lease as it holds a job, while every job keeps its own schedule.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../app/context.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { readAccountClock } from '../store/account-clocks.js';
import { claimAccountWake, endAccountWake, freeAccountWakes } from '../store/account-wakes.js';
import { claimJob, createJobRows, dueJobNames, finishJob, renewJobLease } from '../store/jobs.js';
import { type Job, JOBS } from './jobs.js';

export interface RunnerOptions {
  pollMs: number;
  leaseMs: number;
}

/**
 * A lease is renewed every third of its length: two renewals in a row may fail (a database
 * hiccup, an event loop held up) before another process could take the job.
 */
const RENEWALS_PER_LEASE = 3;

/** Woken accounts read at one poll; the rest wait for the next. */
const WAKES_PER_POLL = 20;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class JobRunner {
  readonly #ctx: AppContext;
  readonly #jobs: ReadonlyMap<string, Job>;
  readonly #perAccount: readonly Job[];
  readonly #options: RunnerOptions;
  /** Written into the rows this process takes, for operators to find the process that runs a job. */
  readonly #runner = `${os.hostname()}:${process.pid}`;
  /** The runs in progress here, by job name. */
  readonly #runs = new Map<string, Promise<void>>();
  /** The woken accounts' work in progress here, one account after another. */
  #accountRuns: Promise<void> | undefined;
  #polling: Promise<void> | undefined;
  #stopping = false;
  #wake: (() => void) | undefined;

  constructor(ctx: AppContext, jobs: readonly Job[] = JOBS, options: RunnerOptions = { pollMs: ctx.config.jobsPollMs, leaseMs: ctx.config.jobLeaseMs }) {
    this.#ctx = ctx;
    this.#jobs = new Map(jobs.map((job) => [job.name, job]));
    // Only the sandbox moves an account's clock or restores it.
    this.#perAccount = ctx.config.sandbox ? jobs.filter((job) => job.perAccount) : [];
    this.#options = options;
  }

  start(): void {
    this.#polling ??= this.#poll();
  }

  /** Takes no more jobs, and resolves once the runs in progress have finished and been recorded. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#polling;
    await Promise.all([...this.#runs.values(), this.#accountRuns]);
  }

  async #poll(): Promise<void> {
    let rowsCreated = false;
    while (!this.#stopping) {
      try {
        if (!rowsCreated) {
          await createJobRows(this.#ctx.db, [...this.#jobs.keys()], this.#ctx.clock.now().getTime());
          rowsCreated = true;
        }
        await this.#takeDueJobs();
        this.#runWokenAccounts();
      } catch (error) {
        this.#ctx.log.error({ err: error }, 'looking for due jobs failed');
      }
      await this.#pause();
    }
  }

  async #takeDueJobs(): Promise<void> {
    const now = this.#ctx.clock.now().getTime();
    const wallNow = wallClockMs(this.#ctx.clock);
    const idle = [...this.#jobs.keys()].filter((name) => !this.#runs.has(name));
    for (const name of await dueJobNames(this.#ctx.db, idle, now, wallNow)) {
      if (this.#stopping) return;
      const leaseId = randomUUID();
      const claimed = await claimJob(this.#ctx.db, { name, now, wallNow, leaseId, leaseUntil: wallNow + this.#options.leaseMs, runner: this.#runner });
      if (!claimed) continue;
      const run = this.#run(this.#jobs.get(name)!, leaseId).finally(() => this.#runs.delete(name));
      this.#runs.set(name, run);
    }
  }

  /** Starts on the woken accounts' work unless it is under way (or there is no per-account job). */
  #runWokenAccounts(): void {
    if (this.#accountRuns !== undefined || this.#perAccount.length === 0) return;
    this.#accountRuns = this.#runWoken()
      .catch((error: unknown) => this.#ctx.log.error({ err: error }, "running woken accounts' work failed"))
      .finally(() => (this.#accountRuns = undefined));
  }

  async #runWoken(): Promise<void> {
    const { db } = this.#ctx;
    for (const { receiverId } of await freeAccountWakes(db, wallClockMs(this.#ctx.clock), WAKES_PER_POLL)) {
      if (this.#stopping) return;
      const wallNow = wallClockMs(this.#ctx.clock);
      const leaseId = randomUUID();
      const wake = await claimAccountWake(db, { receiverId, leaseId, wallNow, leaseUntil: wallNow + this.#options.leaseMs });
      if (!wake) continue;
      await this.#runForAccount(receiverId);
      await endAccountWake(db, wake, leaseId);
    }
  }

  /** Every per-account job for the account alone; a job that fails is logged, and its own runs catch up. */
  async #runForAccount(receiverId: number): Promise<void> {
    // The move may have been made by another process, which this one hears of only at its next read
    // of the invalidation feed: the account's clock is read now. An account removed since has no work.
    const clock = await readAccountClock(this.#ctx.db, receiverId);
    if (!clock) return;
    this.#ctx.clocks.setAccount(receiverId, clock);
    for (const job of this.#perAccount) {
      try {
        await job.run(this.#ctx, receiverId);
      } catch (failure) {
        this.#ctx.log.error({ err: failure, job: job.name, receiverId }, `job failed for an account: ${job.name}`);
      }
    }
  }

  async #pause(): Promise<void> {
    if (this.#stopping) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#options.pollMs);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
  }

  /** Runs a job taken with `leaseId` and records its end; never rejects. */
  async #run(job: Job, leaseId: string): Promise<void> {
    const log = this.#ctx.log.child({ job: job.name });
    const lease = this.#keepLease(job.name, leaseId, log);
    const started = performance.now();
    let error: string | null = null;
    try {
      await job.run(this.#ctx);
    } catch (failure) {
      error = errorText(failure);
      log.error({ err: failure }, `job failed: ${job.name}`);
    }
    await lease.stop();
    const finishedAt = this.#ctx.clock.now().getTime();
    try {
      const held = await finishJob(this.#ctx.db, { name: job.name, leaseId, finishedAt, nextRunAt: finishedAt + job.everyMs, error });
      if (held) log.debug({ ms: Math.round(performance.now() - started) }, 'job finished');
      else log.error('a job finished after its lease had ended; another process may have run it meanwhile');
    } catch (failure) {
      log.error({ err: failure }, 'recording the end of a job failed; it runs again once its lease ends');
    }
  }

  /** Renews the lease while the run lasts, until the returned stop; a lease found taken over is given up. */
  #keepLease(name: string, leaseId: string, log: AppContext['log']): { stop(): Promise<void> } {
    const { leaseMs } = this.#options;
    let renewing: Promise<void> | undefined;
    const renew = async () => {
      try {
        if (await renewJobLease(this.#ctx.db, name, leaseId, wallClockMs(this.#ctx.clock) + leaseMs)) return;
        clearInterval(timer);
        log.error('a job ran past its lease and another process may have taken it over');
      } catch (error) {
        log.warn({ err: error }, 'renewing a job lease failed; it is tried again');
      }
    };
    const timer = setInterval(() => {
      renewing ??= renew().finally(() => (renewing = undefined));
    }, leaseMs / RENEWALS_PER_LEASE);
    return {
      stop: async () => {
        clearInterval(timer);
        await renewing;
      },
    };
  }
}
