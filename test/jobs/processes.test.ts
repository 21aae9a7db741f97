// Background work in an installation of several real processes on one database: `quipu serve`
// processes and `quipu worker` processes (three and two on PostgreSQL; two and one on one SQLite
// file), beside a `quipu serve` with RUN_WORKER=false, which runs neither jobs nor deliveries.
// Each run of a job happens in one process: DemoBank, whose journal every process writes to, is
// asked about an uncertain transfer once per run of the job that asks, not once per process; and
// each payment notification reaches its receiver once.
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type MerchantCredentials } from '../../src/app/create-merchant.js';
import { journaledRequests } from '../../src/bank/demo-bank-books.js';
import { loadConfig } from '../../src/config.js';
import type { Merchant } from '../../src/domain/merchant.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { listJobRows } from '../../src/store/jobs.js';
import type { JobRow } from '../../src/store/schema.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.js';
import { reconciledPaymentIn } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { tabAtCoordinates } from '../helpers/payer-session.js';
import { countRows } from '../helpers/payments.js';
import { freePort, quipu, startServerProcess, waitForHttp, type ServerProcess } from '../helpers/process.js';

const POSTGRES = testDatabaseKind() === 'postgres';
const SERVES = POSTGRES ? 3 : 2;
const WORKERS = POSTGRES ? 2 : 1;
const NOTIFICATIONS = 500;
const CLOCK_MOVES = 3;
const LEAVE_UNCERTAIN = { c1: '12', c2: '34', c3: '56' };

let database: TestDatabase;
let runtime: Runtime;
let receiver: Receiver;
let env: Record<string, string>;
let merchant: Merchant;
let credentials: MerchantCredentials;
const hits = new Map<string, number>();
/** The `quipu serve` processes that run jobs and deliveries, with their base URLs. */
const serves: { process: ServerProcess; baseUrl: string }[] = [];
const workers: ServerProcess[] = [];
let apiOnly: { process: ServerProcess; baseUrl: string };

async function startServe(extra: Record<string, string> = {}) {
  const port = await freePort();
  const process = startServerProcess({ ...env, PORT: String(port), ...extra });
  return { process, baseUrl: `http://127.0.0.1:${port}` };
}

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver((request) => {
    const id = JSON.parse(request.body).payment_id as string;
    hits.set(id, (hits.get(id) ?? 0) + 1);
    return { status: 200 };
  });
  env = {
    DATABASE_URL: database.url,
    DATA_DIR: database.dataDir,
    LOG_LEVEL: 'info',
    DEMO_ACCOUNT: 'false',
    DELIVERY_POLL_MS: '20',
    JOBS_POLL_MS: '50',
    INVALIDATION_POLL_MS: '50',
  };
  // Migrated here, once, before the processes start.
  runtime = await startRuntime(loadConfig(env), createLogger('silent', 2));
  ({ merchant, credentials } = await createMerchant(runtime.ctx, { name: 'Shop', developer: true, notifyUrl: receiver.url }));

  for (let i = 0; i < SERVES; i++) serves.push(await startServe());
  for (let i = 0; i < WORKERS; i++) workers.push(startServerProcess(env, ['worker']));
  apiOnly = await startServe({ RUN_WORKER: 'false' });
  const runners = [...serves.map((s) => s.process), ...workers];
  await Promise.all([...serves, apiOnly].map((s) => waitForHttp(`${s.baseUrl}/healthz`, 60_000)));
  await Promise.all(runners.map((p) => p.waitFor('background jobs started', 60_000)));
}, 120_000);

afterAll(async () => {
  for (const p of [...serves.map((s) => s.process), ...workers, apiOnly?.process]) await p?.stop('SIGKILL');
  await runtime?.close();
  await receiver?.close();
  await database?.drop();
});

const runnerIds = () => [...serves.map((s) => s.process), ...workers].map((p) => `${os.hostname()}:${p.child.pid}`);

async function jobRows(): Promise<Map<string, JobRow>> {
  return new Map((await listJobRows(runtime.ctx.db)).map((row) => [row.name, row]));
}

/**
 * Jobs due every few seconds (collect-debits) also run as real time passes, so only the jobs due
 * every minute or more are counted exactly; the others must have run at least as often.
 */
const counted = (name: string) => JOBS.find((job) => job.name === name)!.everyMs >= 60_000;
const ranAsDue = (name: string, runs: number, expected: number) => (counted(name) ? runs === expected : runs >= expected);

/** Every job of the table, once none is running and each has finished `runs(name)` runs. */
function jobsFinished(runs: (name: string) => number): Promise<Map<string, JobRow>> {
  const idle = (name: string, row: JobRow | undefined) => !counted(name) || row?.lease_id === null;
  return eventually(jobRows, (rows) => JOBS.every(({ name }) => ranAsDue(name, rows.get(name)?.runs ?? 0, runs(name)) && idle(name, rows.get(name))), 60_000);
}

describe(`${SERVES} quipu serve and ${WORKERS} quipu worker on one ${POSTGRES ? 'PostgreSQL database' : 'SQLite file'}`, () => {
  it('run each job once when it is due, in one process: DemoBank is asked about an uncertain transfer once per run', async () => {
    // At start every job was due at once, and each ran once between all the processes.
    const atStart = await jobsFinished(() => 1);

    const api = client(serves[0]!.baseUrl, credentials.api_key);
    const created = await api.post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order' });
    expect(created.status).toBe(200);
    const paymentId = created.body.payment_id as string;
    const tab = await tabAtCoordinates(serves[1]!.baseUrl, paymentId);
    expect((await tab.submit(LEAVE_UNCERTAIN)).status).toBe(303);
    const asked = async (operation: string) => (await journaledRequests(runtime.ctx.db, { paymentId, limit: 1_000 })).filter((r) => r.operation === operation);
    const statusAskedBefore = (await asked('transfer-status')).length;

    for (let move = 1; move <= CLOCK_MOVES; move++) {
      // The installation's clock an hour and a minute on: every job of the table is due again, the
      // minute ones sixty times over (a move of an account's own clock wakes only that account's work).
      expect((await quipu(['clock', 'advance', '61m'], env)).code).toBe(0);
      await jobsFinished((name) => atStart.get(name)!.runs + move);
    }

    const rows = await jobRows();
    expect(await asked('transfer')).toEqual([expect.objectContaining({ orderId: tab.path.split('/')[3], answer: 'uncertain' })]);
    expect((await asked('transfer-status')).length - statusAskedBefore).toBe(CLOCK_MOVES);
    // DemoBank has no credits to report: each run of the collecting job asked it once.
    const creditReports = (await journaledRequests(runtime.ctx.db, { limit: 10_000 })).filter((r) => r.operation === 'credits');
    expect(creditReports).toHaveLength(rows.get('collect-bank-credits')!.runs);
    for (const row of rows.values()) expect(runnerIds()).toContain(row.runner);

    const listed = await quipu(['jobs', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    const listedJobs = JSON.parse(listed.stdout) as { name: string; running: boolean; runs: number }[];
    expect(listedJobs.map((job) => job.name)).toEqual(JOBS.map((job) => job.name));
    for (const job of listedJobs) expect(ranAsDue(job.name, job.runs, 1 + CLOCK_MOVES) && (!counted(job.name) || !job.running)).toBe(true);
    const journal = await quipu(['demobank', 'requests', '--payment', paymentId, '--json'], env);
    expect(JSON.parse(journal.stdout).map((r: { operation: string }) => r.operation)).toEqual([
      'transfer',
      ...Array<string>((await asked('transfer-status')).length).fill('transfer-status'),
    ]);
  });

  it(`deliver each of ${NOTIFICATIONS} payment notifications once between them`, async () => {
    for (let i = 0; i < NOTIFICATIONS; i += 25) await Promise.all(Array.from({ length: 25 }, () => reconciledPaymentIn(runtime.ctx, merchant)));
    await eventually(
      () => runtime.ctx.db.selectFrom('messages').select('message_id').where('status', '=', 'delivered').execute(),
      (rows) => rows.length === NOTIFICATIONS,
      60_000,
    );
    expect(hits.size).toBe(NOTIFICATIONS);
    expect([...hits.values()].every((n) => n === 1)).toBe(true);
    expect(await countRows(runtime.ctx.db, 'message_attempts')).toBe(NOTIFICATIONS);
  });

  it('leave jobs and deliveries alone in the process started with RUN_WORKER=false, and stop gracefully', async () => {
    expect(apiOnly.process.output()).toContain('quipu is listening');
    expect(apiOnly.process.output()).not.toContain('background jobs started');
    expect(apiOnly.process.output()).not.toContain('notification delivery worker started');
    for (const row of (await jobRows()).values()) expect(row.runner).not.toBe(`${os.hostname()}:${apiOnly.process.child.pid}`);

    const runners = [...serves.map((s) => s.process), ...workers];
    await Promise.all(runners.map((p) => p.stop('SIGTERM')));
    for (const p of runners) {
      expect(p.child.exitCode).toBe(0);
      expect(p.output()).toContain('shutting down');
    }
  });
});
