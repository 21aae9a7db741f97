// The jobs table as processes use it: a due job is taken with one conditional UPDATE, so of two
// processes (two connections here) that claim it at once one gets it; a lease holds it on the wall
// clock until it ends or the run finishes, and the run's end says when it is due again. Instants
// are passed explicitly: the developer clock and the wall clock are the callers' to read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { claimJob, createJobRows, dueJobNames, finishJob, type JobClaim, listJobRows, renewJobLease } from '../../src/store/jobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let other: Runtime;

beforeAll(async () => {
  server = await startTestServer();
  other = await startRuntime(server.config, createLogger('silent', 2));
});
afterAll(async () => {
  await other?.close();
  await server?.close();
});

const T = Date.UTC(2030, 0, 1);
const WALL = 1_000_000;
const rowOf = async (name: string) => (await listJobRows(server.ctx.db)).find((r) => r.name === name)!;
const claim = (name: string, leaseId: string, at: Partial<JobClaim> = {}): JobClaim => ({
  name,
  now: T,
  wallNow: WALL,
  leaseId,
  leaseUntil: WALL + 1_000,
  runner: `test:${leaseId}`,
  ...at,
});

describe('job rows', () => {
  it('are created due at once, and creating them again leaves them as they are', async () => {
    await createJobRows(server.ctx.db, ['rows-a', 'rows-b'], T);
    expect(await rowOf('rows-a')).toMatchObject({ run_at: T, runs: 0, lease_id: null, locked_until: null, last_started_at: null });
    await claimJob(server.ctx.db, claim('rows-a', 'lease-1'));
    await createJobRows(other.ctx.db, ['rows-a', 'rows-b'], T + 5_000);
    expect(await rowOf('rows-a')).toMatchObject({ run_at: T, runs: 1, lease_id: 'lease-1' });
    expect((await rowOf('rows-b')).run_at).toBe(T);
  });

  it('are listed as due only when due on the developer clock and free on the wall clock, among the names asked', async () => {
    await createJobRows(server.ctx.db, ['due-free', 'due-held', 'not-due', 'not-asked'], T);
    await claimJob(server.ctx.db, claim('due-held', 'held'));
    await claimJob(server.ctx.db, claim('not-due', 'done'));
    await finishJob(server.ctx.db, { name: 'not-due', leaseId: 'done', finishedAt: T, nextRunAt: T + 60_000, error: null });
    expect(await dueJobNames(server.ctx.db, ['due-free', 'due-held', 'not-due'], T, WALL)).toEqual(['due-free']);
    expect(await dueJobNames(server.ctx.db, ['due-free', 'due-held', 'not-due'], T + 60_000, WALL + 1_001)).toEqual(
      expect.arrayContaining(['due-free', 'due-held', 'not-due']),
    );
  });
});

describe('claiming a job', () => {
  it('from two processes at once: exactly one takes it, every time', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    await createJobRows(server.ctx.db, names, T);
    for (const name of names) {
      const [mine, theirs] = await Promise.all([claimJob(server.ctx.db, claim(name, `${name}-a`)), claimJob(other.ctx.db, claim(name, `${name}-b`))]);
      const winners = [mine, theirs].filter((row) => row !== undefined);
      expect(winners).toHaveLength(1);
      expect((await rowOf(name)).lease_id).toBe(winners[0]!.lease_id);
      expect((await rowOf(name)).runs).toBe(1);
    }
  });

  it('waits for the lease to end, which renewals push back; the process that lost it can neither renew nor finish it', async () => {
    await createJobRows(server.ctx.db, ['lease'], T);
    expect(await claimJob(server.ctx.db, claim('lease', 'first'))).toMatchObject({
      lease_id: 'first',
      locked_until: WALL + 1_000,
      runner: 'test:first',
      last_started_at: T,
    });
    expect(await claimJob(other.ctx.db, claim('lease', 'second', { wallNow: WALL + 999 }))).toBeUndefined();

    expect(await renewJobLease(server.ctx.db, 'lease', 'first', WALL + 5_000)).toBe(true);
    expect(await claimJob(other.ctx.db, claim('lease', 'second', { wallNow: WALL + 1_001 }))).toBeUndefined();

    expect(await claimJob(other.ctx.db, claim('lease', 'second', { wallNow: WALL + 5_001, leaseUntil: WALL + 6_001 }))).toMatchObject({
      lease_id: 'second',
      runs: 2,
    });
    expect(await renewJobLease(server.ctx.db, 'lease', 'first', WALL + 9_000)).toBe(false);
    expect(await finishJob(server.ctx.db, { name: 'lease', leaseId: 'first', finishedAt: T + 1, nextRunAt: T + 60_001, error: null })).toBe(false);
    expect(await rowOf('lease')).toMatchObject({ lease_id: 'second', locked_until: WALL + 6_001, run_at: T, last_finished_at: null });
  });
});

describe('finishing a run', () => {
  it('frees the job and makes it due at the next run the runner computed, not before', async () => {
    await createJobRows(server.ctx.db, ['finish'], T);
    await claimJob(server.ctx.db, claim('finish', 'run-1'));
    expect(await finishJob(server.ctx.db, { name: 'finish', leaseId: 'run-1', finishedAt: T + 10, nextRunAt: T + 60_010, error: null })).toBe(true);
    expect(await rowOf('finish')).toMatchObject({ run_at: T + 60_010, lease_id: null, locked_until: null, last_finished_at: T + 10, last_error: null });
    // Free on the wall clock at once, but not due on the developer clock.
    expect(await claimJob(other.ctx.db, claim('finish', 'early', { now: T + 60_009 }))).toBeUndefined();
    expect(await claimJob(other.ctx.db, claim('finish', 'run-2', { now: T + 60_010 }))).toMatchObject({ lease_id: 'run-2', runs: 2 });
  });

  it('keeps the error of a failed run, and its time, after later runs succeed', async () => {
    await createJobRows(server.ctx.db, ['errors'], T);
    await claimJob(server.ctx.db, claim('errors', 'fails'));
    await finishJob(server.ctx.db, { name: 'errors', leaseId: 'fails', finishedAt: T + 5, nextRunAt: T + 10, error: 'the bank is down' });
    expect(await rowOf('errors')).toMatchObject({ last_error: 'the bank is down', last_error_at: T + 5, last_finished_at: T + 5, lease_id: null });
    await claimJob(server.ctx.db, claim('errors', 'works', { now: T + 10 }));
    await finishJob(server.ctx.db, { name: 'errors', leaseId: 'works', finishedAt: T + 20, nextRunAt: T + 30, error: null });
    expect(await rowOf('errors')).toMatchObject({ last_error: 'the bank is down', last_error_at: T + 5, last_finished_at: T + 20, runs: 2 });
  });
});
