// The installation's developer clock back to real time: by its use case and from the CLI, followed
// by every process (a reset is a new epoch, which a stale read of the old offset cannot undo), with
// the job runs and deliveries due on the moved clock brought back by the same amount; and `quipu
// serve` saying at start how far ahead the clock is. Accounts that never moved a clock of their own
// follow it (an account's own clock: test/http/account-clocks.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveClock, resetClock } from '../../src/app/developer-clock.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { CLOCK_EPOCH_SETTING, CLOCK_OFFSET_SETTING } from '../../src/runtime/clock.js';
import { createJobRows } from '../../src/store/jobs.js';
import { readSetting } from '../../src/store/settings.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver } from '../helpers/notification-receiver.js';
import { quipu, serveOnFreePort, type ServerProcess } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let server: TestServer;
let developer: TestAccount;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  developer = await server.account();
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn' };
});
afterAll(async () => server?.close());

const api = () => client(server.baseUrl, developer.api_key);
const storedOffset = async () => Number(await readSetting(server.ctx.db, CLOCK_OFFSET_SETTING));

describe("a reset of the installation's clock", () => {
  it('brings the clock back to real time, and a read of the old offset does not move it ahead again', async () => {
    await moveClock(server.ctx, { advance: '2d' });
    // An account without a clock of its own follows the installation's.
    expect((await api().get('/sandbox/clock')).body).toMatchObject({ own: false });
    expect((await api().get('/sandbox/clock')).body.offset_ms).toBeGreaterThanOrEqual(2 * DAY);
    const epoch = Number((await readSetting(server.ctx.db, CLOCK_EPOCH_SETTING)) ?? 0);

    const before = Date.now();
    const reset = await resetClock(server.ctx);
    expect(server.ctx.clocks.offsetMs).toBe(0);
    expect(reset.getTime()).toBeGreaterThanOrEqual(before);
    expect(reset.getTime()).toBeLessThan(before + DAY);
    expect(await storedOffset()).toBe(0);
    expect(Number(await readSetting(server.ctx.db, CLOCK_EPOCH_SETTING))).toBe(epoch + 1);

    // A process that read the old offset before the reset applies it with the old epoch: ignored.
    server.ctx.clocks.setOffset(2 * DAY, epoch);
    expect(server.ctx.clock.offsetMs).toBe(0);
    await server.ctx.feed.poll();
    expect((await api().get('/sandbox/clock')).body.offset_ms).toBe(0);
    // Moving forward again starts from real time.
    await moveClock(server.ctx, { advance: '1h' });
    expect(server.ctx.clocks.offsetMs).toBeLessThan(HOUR + 60_000);
    await resetClock(server.ctx);
  });

  it('brings job runs and deliveries due on the moved clock back by the offset it removes', async () => {
    await moveClock(server.ctx, { advance: '2d' });
    const offset = await storedOffset();
    // A receiver that fails: the notification's next attempt is due on the moved clock.
    const failing = await startReceiver(() => ({ status: 500 }));
    const worker = testWorker(server);
    let payment;
    try {
      payment = await reconciledPayment(server, developer, { notify_url: failing.url });
      await failing.waitFor((requests) => requests.length === 1);
    } finally {
      await worker.stop();
      await failing.close();
    }
    const messageOf = () =>
      server.ctx.db
        .selectFrom('messages')
        .select(['next_attempt_at', 'round_started_at', 'status'])
        .where('subject_id', '=', payment.paymentId)
        .executeTakeFirstOrThrow();
    const failed = await eventually(messageOf, (m) => m.next_attempt_at !== null && m.next_attempt_at > server.ctx.clock.now().getTime());
    const [later, due] = JOBS.map((job) => job.name);
    await createJobRows(server.ctx.db, [later!], server.ctx.clock.now().getTime() + 10 * 60_000);
    await createJobRows(server.ctx.db, [due!], Date.now() - 60_000);
    const jobRun = async (name: string) => (await server.ctx.db.selectFrom('jobs').select('run_at').where('name', '=', name).executeTakeFirstOrThrow()).run_at;
    const [laterAt, dueAt] = [await jobRun(later!), await jobRun(due!)];

    await resetClock(server.ctx);
    const message = await messageOf();
    expect(message.status).toBe('pending');
    // The retry due five seconds after the failed attempt is still due about then, in real time.
    expect(message.next_attempt_at!).toBeGreaterThanOrEqual(failed.next_attempt_at! - offset);
    expect(message.next_attempt_at!).toBeLessThanOrEqual(Math.max(failed.next_attempt_at! - offset, Date.now()));
    expect(message.next_attempt_at!).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(message.round_started_at).toBe(failed.round_started_at - offset);
    expect(await jobRun(later!)).toBe(laterAt - offset);
    expect(await jobRun(due!)).toBe(dueAt);
  });
});

describe('quipu clock', () => {
  it('shows the offset, resets it, and a running server and a new `quipu serve` follow', async () => {
    const started: ServerProcess[] = [];
    try {
      expect((await quipu(['clock', 'advance', '1d3h'], env)).code).toBe(0);
      const shown = await quipu(['clock', 'show'], env);
      expect(shown.stdout).toMatch(/^\+1d 3h(?: \d+s)? \(developer clock \d{4}-\d\d-\d\dT[\d:.]+Z\)\n$/);
      const serving = await serveOnFreePort(env, started);
      await serving.waitFor(/The developer clock is ahead of real time: \+1d 3h.*; `quipu clock reset` brings it back\./);

      const reset = await quipu(['clock', 'reset'], env);
      expect(reset.code).toBe(0);
      expect(Math.abs(Date.parse(reset.stdout.trim()) - Date.now())).toBeLessThan(HOUR);
      expect((await quipu(['clock', 'show'], env)).stdout).toMatch(/^0 \(developer clock /);
      // The test server, another process than the command, reads the reset on its next poll.
      await eventually(
        async () => (await api().get('/sandbox/clock')).body.offset_ms,
        (offset) => offset === 0,
      );
      const other = client(serving.baseUrl, developer.api_key);
      await eventually(
        async () => (await other.get('/sandbox/clock')).body.offset_ms,
        (offset) => offset === 0,
      );
    } finally {
      for (const p of started) await p.stop();
    }
  }, 120_000);

  it('refuses a reset where the sandbox is off', async () => {
    const closed = await quipu(['clock', 'reset'], { ...env, SANDBOX: 'false' });
    expect(closed.code).toBe(2);
    expect(closed.stderr).toContain('SANDBOX=false');
  }, 60_000);
});

// Last: a production account stops the clock from moving for the rest of the file.
describe('an installation with production accounts', () => {
  it('keeps its clock still, resets it all the same, and lets developer-mode accounts move their own', async () => {
    await moveClock(server.ctx, { advance: '1h' });
    const production = await server.account({ developer: false });
    await expect(moveClock(server.ctx, { advance: '1h' })).rejects.toMatchObject({ kind: 'forbidden' });
    expect((await resetClock(server.ctx)).getTime()).toBeLessThan(Date.now() + 60_000);
    expect(server.ctx.clocks.offsetMs).toBe(0);
    // A production account's own clock never moves; a developer account's does, alone.
    expect((await client(server.baseUrl, production.api_key).post('/sandbox/clock', { advance: '1h' })).status).toBe(403);
    expect((await client(server.baseUrl, production.api_key).post('/sandbox/clock/reset')).status).toBe(403);
    expect((await client(server.baseUrl, '').post('/sandbox/clock/reset')).status).toBe(401);
    expect((await api().post('/sandbox/clock', { advance: '1h' })).body).toMatchObject({ own: true });
    const reset = await api().post('/sandbox/clock/reset');
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ offset_ms: 0, own: false });
  });
});
