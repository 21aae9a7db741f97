// The developer clocks: an account's own over HTTP (read it, move it forward, never back; only for
// developer-mode accounts, only where the sandbox is on) and the installation's from the CLI, which
// every account without a clock of its own follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOCK_OFFSET_SETTING } from '../../src/runtime/clock.js';
import { readAccountClock } from '../../src/store/account-clocks.js';
import { readSetting } from '../../src/store/settings.js';
import { client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { quipu } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;
let server: TestServer;
let developer: TestAccount;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  developer = await server.account();
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn' };
});
afterAll(async () => server?.close());

const now = async () => Date.parse((await client(server.baseUrl, developer.api_key).get('/sandbox/clock')).body.now);

describe('GET/POST /sandbox/clock', () => {
  it('reads the clock and moves it by a duration or to an instant', async () => {
    const api = client(server.baseUrl, developer.api_key);
    const read = await api.get('/sandbox/clock');
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ now: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), offset_ms: 0, own: false });

    const before = await now();
    const moved = await api.post('/sandbox/clock', { advance: '3h' });
    expect(moved.status).toBe(200);
    expect(Date.parse(moved.body.now) - before).toBeGreaterThanOrEqual(3 * HOUR);
    expect(await now()).toBeGreaterThanOrEqual(Date.parse(moved.body.now));

    const target = new Date(Date.parse(moved.body.now) + 26 * HOUR).toISOString();
    const to = await api.post('/sandbox/clock', { to: target });
    expect(to.status).toBe(200);
    expect(Date.parse(to.body.now)).toBeGreaterThanOrEqual(Date.parse(target));
    // The account's own clock moved, stored for every process; the installation's did not.
    expect(to.body).toMatchObject({ own: true, offset_ms: server.ctx.clocks.offsetOf(developer.receiver_id) });
    expect((await readAccountClock(server.ctx.db, developer.receiver_id))!.offsetMs).toBe(to.body.offset_ms);
    expect(await readSetting(server.ctx.db, CLOCK_OFFSET_SETTING)).toBeUndefined();
    expect((await client(server.baseUrl, (await server.account()).api_key).get('/sandbox/clock')).body).toMatchObject({ offset_ms: 0, own: false });

    // Time follows it: a payment created now expires relative to the moved clock.
    const payment = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Later' });
    const created = await api.get(`/v3/payments/${payment.body.payment_id}`);
    expect(Date.parse(created.body.expires_date)).toBeGreaterThan(Date.parse(target));
  });

  it.each([
    [{ advance: 'soon' }, 'advance'],
    [{ advance: '-3h' }, 'advance'],
    [{ advance: '0s' }, 'advance'],
    [{ advance: 3 }, 'advance'],
    [{ to: '2001-01-01T00:00:00Z' }, 'to'],
    [{ to: 'tomorrow' }, 'to'],
    [{ advance: '1h', to: '2999-01-01T00:00:00Z' }, 'to'],
    [{}, 'advance'],
    [{ back: '1h' }, 'back'],
  ])('refuses %j naming %s, and the clock does not move', async (body, field) => {
    const offset = server.ctx.clocks.offsetOf(developer.receiver_id);
    const stored = await readAccountClock(server.ctx.db, developer.receiver_id);
    const res = await client(server.baseUrl, developer.api_key).post('/sandbox/clock', body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(server.ctx.clocks.offsetOf(developer.receiver_id)).toBe(offset);
    expect(await readAccountClock(server.ctx.db, developer.receiver_id)).toEqual(stored);
  });

  it("is only for developer-mode accounts, and the installation's clock stands still once it has production accounts", async () => {
    // A server of its own: a production account there stops the installation's clock for good.
    const mixed = await startTestServer();
    try {
      const developerApi = client(mixed.baseUrl, (await mixed.account()).api_key);
      const production = await mixed.account({ developer: false });
      const api = client(mixed.baseUrl, production.api_key);
      expect((await api.get('/sandbox/clock')).status).toBe(403);
      expect((await api.post('/sandbox/clock', { advance: '1h' })).status).toBe(403);
      expect((await client(mixed.baseUrl, '').get('/sandbox/clock')).status).toBe(401);
      // A developer-mode account's own clock moves all the same: only its records follow it.
      expect((await developerApi.post('/sandbox/clock', { advance: '1h' })).body).toMatchObject({ own: true });
      const cli = await quipu(['clock', 'advance', '1h'], { DATABASE_URL: mixed.database.url, DATA_DIR: mixed.database.dataDir, LOG_LEVEL: 'warn' });
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain('production accounts');
      expect(mixed.ctx.clocks.offsetMs).toBe(0);
      expect(await readSetting(mixed.ctx.db, CLOCK_OFFSET_SETTING)).toBeUndefined();
    } finally {
      await mixed.close();
    }
  }, 60_000);

  it('does not exist when the operator turns the sandbox off', async () => {
    const closed = await startTestServer({ SANDBOX: 'false' });
    try {
      const account = await closed.account();
      const api = client(closed.baseUrl, account.api_key);
      expect((await api.get('/sandbox/clock')).status).toBe(404);
      expect((await api.post('/sandbox/clock', { advance: '1h' })).status).toBe(404);
      expect(closed.ctx.clocks.offsetMs).toBe(0);
    } finally {
      await closed.close();
    }
  });
});

describe('quipu clock', () => {
  it('advances the clock of a running server through the shared database', async () => {
    // An account that never moved a clock of its own reads the installation's.
    const follower = (await server.account()).api_key;
    const now = async () => Date.parse((await client(server.baseUrl, follower).get('/sandbox/clock')).body.now);
    const before = await now();
    const advanced = await quipu(['clock', 'advance', '2d'], env);
    expect(advanced.code).toBe(0);
    const printed = Date.parse(advanced.stdout.trim());
    expect(printed - before).toBeGreaterThanOrEqual(48 * HOUR);
    // The server reads the new offset on its next invalidation-feed poll.
    expect(
      await eventually(
        () => now(),
        (t) => t >= printed,
      ),
    ).toBeGreaterThanOrEqual(printed);
    const shown = await quipu(['clock', 'show'], env);
    expect(shown.code).toBe(0);
    const [, offset, time] = /^(\+\S+(?: \S+)*) \(developer clock (\S+)\)$/.exec(shown.stdout.trim())!;
    expect(offset).toMatch(/^\+\d+d/);
    expect(Date.parse(time!)).toBeGreaterThanOrEqual(printed);
  }, 60_000);

  it('refuses bad durations and a closed sandbox without moving the clock', async () => {
    const stored = await readSetting(server.ctx.db, CLOCK_OFFSET_SETTING);
    const bad = await quipu(['clock', 'advance', 'later'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('advance: must be a duration');
    const closed = await quipu(['clock', 'advance', '1h'], { ...env, SANDBOX: 'false' });
    expect(closed.code).toBe(2);
    expect(closed.stderr).toContain('SANDBOX=false');
    expect(await readSetting(server.ctx.db, CLOCK_OFFSET_SETTING)).toBe(stored);
  }, 60_000);
});
