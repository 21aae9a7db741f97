// The job runner of `quipu serve` and `quipu worker`, several at once on one database, each with
// its own runtime and connection as separate processes have: a due job runs in one of them; moving
// the developer clock makes it due once, however many intervals the move skips; a run longer than
// its lease keeps the job; a dead process's job is taken over when its lease ends; stopping waits
// for the runs in progress; a failed run is recorded and logged.
import { moveClock } from '../../src/app/developer-clock.js';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/context.js';
import type { Job } from '../../src/jobs/jobs.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { wallClockMs } from '../../src/runtime/wall-clock.js';
import { claimJob, createJobRows, listJobRows } from '../../src/store/jobs.js';
import { eventually } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';

const runtimes: Runtime[] = [];
let runners: JobRunner[] = [];

const setup = useTestServer();
beforeAll(async () => {
  for (let i = 0; i < 2; i++) runtimes.push(await startRuntime(setup.server.config, createLogger('silent', 2)));
});
afterEach(async () => {
  await Promise.all(runners.map((r) => r.stop()));
  runners = [];
});
afterAll(async () => {
  for (const r of runtimes) await r.close();
});

/** The contexts of three processes on the test server's database. */
const contexts = (): AppContext[] => [setup.server.ctx, ...runtimes.map((r) => r.ctx)];

interface TestJob extends Job {
  /** The context of each run, in order: which "process" ran it. */
  ranIn: AppContext[];
}

function testJob(name: string, body: () => Promise<void> = async () => undefined, everyMs = 60_000): TestJob {
  const ranIn: AppContext[] = [];
  return {
    name,
    everyMs,
    ranIn,
    run: async (ctx) => {
      ranIn.push(ctx);
      await body();
    },
  };
}

function startRunner(ctx: AppContext, jobs: Job[], leaseMs = 10_000): JobRunner {
  const runner = new JobRunner(ctx, jobs, { pollMs: 10, leaseMs });
  runners.push(runner);
  runner.start();
  return runner;
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const rowOf = async (name: string) => (await listJobRows(setup.server.ctx.db)).find((r) => r.name === name);
/** The row once no run holds it and it has been finished `runs` times. */
const finished = async (name: string, runs: number) =>
  (await eventually(
    () => rowOf(name),
    (row) => row?.runs === runs && row.lease_id === null && row.last_finished_at !== null,
  ))!;

describe('a job shared by three runners', () => {
  it('runs once when due, and once more when the developer clock moves past sixty of its intervals', async () => {
    const job = testJob('shared');
    for (const ctx of contexts()) startRunner(ctx, [job]);
    const first = await finished('shared', 1);
    expect(job.ranIn).toHaveLength(1);
    expect(first.run_at).toBe(first.last_finished_at! + 60_000);

    // The installation's clock, which the jobs' schedule runs on.
    await moveClock(setup.server.ctx, { advance: '1h' });
    const second = await finished('shared', 2);
    expect(job.ranIn).toHaveLength(2);
    expect(second.last_started_at).toBeGreaterThanOrEqual(first.last_finished_at! + 3_600_000);
    // Due again one interval after this run, on every runner's clock once it has seen the move.
    expect(second.run_at).toBe(second.last_finished_at! + 60_000);
    await eventually(
      async () => contexts().map((ctx) => ctx.clock.offsetMs),
      (offsets) => offsets.every((o) => o === setup.server.ctx.clock.offsetMs),
    );
    for (const ctx of contexts()) expect(second.run_at).toBeGreaterThan(ctx.clock.now().getTime());
  });

  it('is kept by a run longer than its lease, renewed while it runs: no other runner takes it meanwhile', async () => {
    const LEASE_MS = 300;
    const release = gate();
    const job = testJob('long', () => release.opened);
    const [mine, ...others] = contexts();
    startRunner(mine!, [job], LEASE_MS);
    const taken = await eventually(
      () => rowOf('long'),
      (row) => row?.lease_id != null,
    );
    for (const ctx of others) startRunner(ctx, [job], LEASE_MS);
    // Long past the end of the first lease, the run still holds the job.
    await eventually(
      () => rowOf('long'),
      (row) => row!.locked_until! > taken!.locked_until! + 2 * LEASE_MS && wallClockMs(setup.server.ctx.clock) > taken!.locked_until! + LEASE_MS,
    );
    expect(job.ranIn).toEqual([mine]);
    expect((await rowOf('long'))!.lease_id).toBe(taken!.lease_id);

    release.open();
    const done = await finished('long', 1);
    expect(done.lease_id).toBeNull();
    expect(job.ranIn).toEqual([mine]);
  });

  it('is taken over once the lease of a process that died mid-run ends', async () => {
    const job = testJob('orphan');
    const now = setup.server.ctx.clock.now().getTime();
    await createJobRows(setup.server.ctx.db, ['orphan'], now);
    const wallNow = wallClockMs(setup.server.ctx.clock);
    const dead = await claimJob(setup.server.ctx.db, { name: 'orphan', now, wallNow, leaseId: 'dead-process', leaseUntil: wallNow + 300, runner: 'gone:1' });
    expect(dead).toBeDefined();
    for (const ctx of contexts()) startRunner(ctx, [job]);

    const done = await finished('orphan', 2);
    expect(job.ranIn).toHaveLength(1);
    expect(done.last_started_at).toBeGreaterThan(now);
    expect(done.runner).not.toBe('gone:1');
  });
});

describe('a runner', () => {
  it('stops only once the runs in progress have finished and been recorded', async () => {
    const release = gate();
    const job = testJob('stopping', () => release.opened);
    const runner = startRunner(setup.server.ctx, [job]);
    await eventually(
      () => rowOf('stopping'),
      (row) => row?.lease_id != null,
    );

    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    const meanwhile = await rowOf('stopping');
    expect(stopped).toBe(false);
    expect(meanwhile!.last_finished_at).toBeNull();

    release.open();
    await stopping;
    expect(await rowOf('stopping')).toMatchObject({ lease_id: null, locked_until: null, runs: 1, last_error: null });
    expect((await rowOf('stopping'))!.last_finished_at).not.toBeNull();
  });

  it('records and logs a failed run, and the job is due again after its interval', async () => {
    const lines: string[] = [];
    const logged = { ...setup.server.ctx, log: pino({ level: 'warn' }, { write: (line: string) => lines.push(line) }) };
    const job = testJob('failing', async () => {
      throw new Error('the bank is down');
    });
    startRunner(logged, [job]);

    const row = await finished('failing', 1);
    expect(row).toMatchObject({ last_error: 'the bank is down', last_error_at: row.last_finished_at, run_at: row.last_finished_at! + 60_000 });
    const errors = lines.map((line) => JSON.parse(line));
    expect(errors).toEqual([
      expect.objectContaining({ level: 50, job: 'failing', msg: 'job failed: failing', err: expect.objectContaining({ message: 'the bank is down' }) }),
    ]);
  });
});
