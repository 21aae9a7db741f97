// What an operator alerts on, as /metrics shows it on both databases: the outbox's backlog by kind
// and state, its oldest due message, the attempts of the last five minutes by outcome, the
// exhausted messages, the jobs' lag and failures, and the process's database connections. The
// messages are written and delivered through the service's own paths, the developer clock moves
// through the sandbox API.
import { moveClock } from '../../src/app/developer-clock.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS } from '../../src/domain/retry-schedule.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { connectionUse } from '../../src/store/database.js';
import { listJobRows } from '../../src/store/jobs.js';
import { testDatabaseKind } from '../helpers/database.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';

const KIND = 'payment.notification.3.0';
const HOUR_S = 3600;

let answering: Receiver;
let failing: Receiver;

const setup = useTestServer({ DB_POOL_SIZE: '7' });
beforeAll(async () => {
  answering = await startReceiver();
  // A Retry-After of an hour: the failed first attempts wait for the clock, not for the test.
  failing = await startReceiver(() => ({ status: 500, headers: { 'retry-after': String(HOUR_S) } }));
});
afterAll(async () => {
  await answering?.close();
  await failing?.close();
});

/** Every series of a scrape, by its name and labels as written. */
async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`${setup.server.baseUrl}/metrics`);
  expect(res.status).toBe(200);
  const series = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const match = /^(quipu_[a-z_0-9]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) series.set(match[1]!, Number(match[2]));
  }
  return series;
}

const backlog = (metrics: Map<string, number>) =>
  ['due', 'in_flight', 'scheduled'].map((state) => metrics.get(`quipu_outbox_backlog{kind="${KIND}",state="${state}"}`));
const attempts = (metrics: Map<string, number>) => ['delivered', 'failed'].map((outcome) => metrics.get(`quipu_outbox_attempts_last_5m{outcome="${outcome}"}`));
/** The installation's clock: what operators watch (due messages, jobs' lag) is measured on it. */
const advanceClock = async (advance: string) => moveClock(setup.server.ctx, { advance });
const notifying = (receiver: Receiver) => ({ notify_url: receiver.url, notify_api_version: '3.0' });

describe('/metrics for operators', () => {
  it('counts the outbox as it fills, delivers, retries and gives up', async () => {
    const empty = await scrape();
    expect(backlog(empty)).toEqual([0, 0, 0]);
    expect(attempts(empty)).toEqual([0, 0]);
    expect(empty.get(`quipu_outbox_exhausted{kind="${KIND}"}`)).toBe(0);
    expect(empty.get('quipu_outbox_oldest_due_seconds')).toBe(0);

    for (let i = 0; i < 3; i++) await reconciledPayment(setup.server, setup.account, notifying(answering));
    for (let i = 0; i < 2; i++) await reconciledPayment(setup.server, setup.account, notifying(failing));
    expect(backlog(await scrape())).toEqual([5, 0, 0]);
    await advanceClock('1h');
    expect((await scrape()).get('quipu_outbox_oldest_due_seconds')).toBeGreaterThanOrEqual(HOUR_S);

    const worker = testWorker(setup.server);
    await answering.waitFor((requests) => requests.length === 3);
    await failing.waitFor((requests) => requests.length === 2);
    await worker.stop();
    const tried = await scrape();
    expect(attempts(tried)).toEqual([3, 2]);
    expect(backlog(tried)).toEqual([0, 0, 2]);
    expect(tried.get('quipu_outbox_oldest_due_seconds')).toBe(0);

    // Three days on, past the two-day window: the missed retries are made one after another, and
    // fail until the rounds end.
    failing.answer(() => ({ status: 500 }));
    await advanceClock('3d');
    const retrying = testWorker(setup.server);
    await failing.waitFor((requests) => requests.length === 2 * MAX_ATTEMPTS, 60_000);
    await retrying.stop();
    const exhausted = await scrape();
    expect(exhausted.get(`quipu_outbox_exhausted{kind="${KIND}"}`)).toBe(2);
    expect(backlog(exhausted)).toEqual([0, 0, 0]);
    // The first attempts fell out of the five minutes with the move.
    expect(attempts(exhausted)).toEqual([0, 2 * (MAX_ATTEMPTS - 1)]);
  }, 90_000);

  it("shows each job's lag and whether its latest run failed", async () => {
    const jobs = [
      { name: 'metrics-test-fine', everyMs: HOUR_S * 1000, run: async () => undefined },
      { name: 'metrics-test-broken', everyMs: HOUR_S * 1000, run: async () => Promise.reject(new Error('the bank is down')) },
    ];
    const runner = new JobRunner(setup.server.ctx, jobs, { pollMs: 20, leaseMs: 5_000 });
    runner.start();
    await expect
      .poll(async () => (await listJobRows(setup.server.ctx.db)).filter((row) => row.name.startsWith('metrics-test-') && row.last_finished_at !== null).length)
      .toBe(2);
    await runner.stop();
    const rows = new Map((await listJobRows(setup.server.ctx.db)).map((row) => [row.name, row]));

    const ran = await scrape();
    expect(ran.get('quipu_job_failing{job="metrics-test-fine"}')).toBe(0);
    expect(ran.get('quipu_job_failing{job="metrics-test-broken"}')).toBe(1);
    expect(ran.get('quipu_job_last_error_timestamp_seconds{job="metrics-test-broken"}')).toBe(rows.get('metrics-test-broken')!.last_error_at! / 1000);
    expect(ran.has('quipu_job_last_error_timestamp_seconds{job="metrics-test-fine"}')).toBe(false);
    expect(ran.get('quipu_job_lag_seconds{job="metrics-test-fine"}')).toBe(0);

    await advanceClock('2h');
    const late = await scrape();
    for (const job of jobs) expect(late.get(`quipu_job_lag_seconds{job="${job.name}"}`)).toBeGreaterThanOrEqual(HOUR_S);
  }, 60_000);

  it("shows this process's database connections: the pool on PostgreSQL, the one connection on SQLite", async () => {
    const size = testDatabaseKind() === 'postgres' ? 7 : 1;
    const idle = await scrape();
    expect(idle.get('quipu_db_pool_size')).toBe(size);
    for (const gauge of ['quipu_db_pool_in_use', 'quipu_db_pool_waiting']) expect(idle.get(gauge)).toBeGreaterThanOrEqual(0);

    // Every connection held by a transaction, and one more query: it waits.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = 0;
    const holders = Array.from({ length: size }, () =>
      setup.server.ctx.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        holding++;
        await held;
      }),
    );
    await expect.poll(() => holding).toBe(size);
    expect(connectionUse(setup.server.ctx.db)!.inUse).toBe(size);
    const waiting = sql`select 1`.execute(setup.server.ctx.db);
    await expect.poll(() => connectionUse(setup.server.ctx.db)!.waiting).toBeGreaterThanOrEqual(1);
    release();
    await Promise.all([...holders, waiting]);
    await expect.poll(() => connectionUse(setup.server.ctx.db)).toEqual({ size, inUse: 0, waiting: 0 });
  });
});
