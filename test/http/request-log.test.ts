// Each account's log of its API requests (docs/request-logs.md), over HTTP on real servers, kept in
// a file of its own (developer mode's default) and in the API's database (REQUEST_LOG_STORE=database):
// a misspelled notifyurl is recorded with the ignored field, a 400 with its error answer, nothing of
// the credentials, the body or the query string; only authenticated API requests are recorded, on
// the account's clock; the dashboard lists an account's own requests with filters and shows each one,
// another account's is not found; pruning keeps REQUEST_LOG_RETENTION_DAYS; deleting a sandbox
// account forgets its rows, restoring a snapshot leaves them; the other place stays empty, and the
// file never moves the API database's change mark. With SANDBOX=false each request is a line of the
// log stream instead, and the dashboard says so.
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { moveAccountClock } from '../../src/app/developer-clock.js';
import { pruneExpired } from '../../src/app/prune-expired.js';
import { logStreamRecords } from '../../src/app/request-records.js';
import { loadConfig } from '../../src/config.js';
import { changeMark, openDatabase } from '../../src/store/database.js';
import { REQUEST_LOG_FILE, RequestLogFile } from '../../src/store/request-log-file.js';
import type { DB, RequestLogRow } from '../../src/store/schema.js';
import { testDatabaseKind } from '../helpers/database.js';
import { call, client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { countRows } from '../helpers/payments.js';
import { logLines, quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS } from '../helpers/production.js';
import { CHOSEN_PASSWORD, serversClosedAfterAll, type TestAccount, type TestServer, useTestServer } from '../helpers/server.js';

const DAY = 86_400_000;

async function signedIn(server: TestServer, account: TestAccount, email: string): Promise<PayerSession> {
  await addDashboardUser(server.ctx, account.receiver_id, { email, password: CHOSEN_PASSWORD });
  const session = new PayerSession(server.baseUrl);
  const form = await session.get('/dashboard/sign-in');
  const answer = await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email, password: CHOSEN_PASSWORD });
  expect(answer.status).toBe(303);
  return session;
}

const STORES = [
  { store: 'file', env: {} },
  { store: 'database', env: { REQUEST_LOG_STORE: 'database' } },
] as const;

describe.each(STORES)('the request log kept in a $store', ({ store, env }) => {
  const setup = useTestServer(env);
  let other: TestAccount;
  /** The file read through a connection of its own, or the API's database. */
  let file: RequestLogFile | undefined;
  let table: Kysely<DB>;

  beforeAll(async () => {
    other = await setup.server.account({ name: 'Other shop' });
    file = store === 'file' ? new RequestLogFile(setup.server.database.dataDir) : undefined;
    table = file ? await file.db() : setup.server.ctx.db;
  });
  afterAll(async () => file?.close());

  const rowsOf = (receiverId: number) =>
    table.selectFrom('request_logs').selectAll().where('receiver_id', '=', receiverId).orderBy('request_log_id').execute() as Promise<RequestLogRow[]>;
  /** The row of the request whose answer carried this x-request-id, once written. */
  const rowOf = async (requestId: string) =>
    (
      await eventually(
        () => table.selectFrom('request_logs').selectAll().where('request_id', '=', requestId).execute(),
        (rows) => rows.length === 1,
      )
    )[0]!;
  const count = async () =>
    Number(
      (
        await table
          .selectFrom('request_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe('recording', () => {
    it('records a misspelled notifyurl with the ignored field, and nothing of the credentials or the body', async () => {
      const api = client(setup.server.baseUrl, setup.account.api_key);
      const res = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Secret subject 77', notifyurl: 'https://shop.test/hook' });
      expect(res.status).toBe(200);
      expect(res.headers.get('quipu-ignored-fields')).toBe('notifyurl');
      const row = await rowOf(res.headers.get('x-request-id')!);
      expect(row).toMatchObject({
        receiver_id: setup.account.receiver_id,
        method: 'POST',
        path: '/v3/payments',
        status: 200,
        ignored_fields: 'notifyurl',
        error_body: null,
      });
      expect(row.duration_ms).toBeGreaterThanOrEqual(0);
      const stored = JSON.stringify(row);
      for (const secret of [setup.account.api_key, setup.account.secret, 'Secret subject 77', 'shop.test']) expect(stored).not.toContain(secret);
    });

    it('records a 400 with its error answer, and the path without its query string', async () => {
      const api = client(setup.server.baseUrl, setup.account.api_key);
      const refused = await call(setup.server.baseUrl, 'POST', '/v3/payments', {
        apiKey: setup.account.api_key,
        rawBody: '{"amount":-5,"currency":"CLP","subject":"x"}',
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status).toBe(400);
      const row = await rowOf(refused.headers.get('x-request-id')!);
      expect(row).toMatchObject({ status: 400, ignored_fields: null });
      expect(JSON.parse(row.error_body!)).toEqual(refused.body);

      const missing = await api.get('/v3/payments/nope?token=s3cr3t-token');
      expect(missing.status).toBe(404);
      const lookup = await rowOf(missing.headers.get('x-request-id')!);
      expect(lookup).toMatchObject({ method: 'GET', path: '/v3/payments/nope', status: 404 });
      expect(JSON.stringify(lookup)).not.toContain('s3cr3t-token');
    });

    it('records only requests that authenticated as an account', async () => {
      const before = await count();
      const ids: string[] = [];
      for (const res of [
        await call(setup.server.baseUrl, 'POST', '/v3/payments', { body: { amount: 1000, currency: 'CLP', subject: 'x' } }),
        await call(setup.server.baseUrl, 'GET', '/v3/payments/x', { apiKey: '00000000-0000-4000-8000-000000000000' }),
        await call(setup.server.baseUrl, 'GET', '/healthz'),
        await call(setup.server.baseUrl, 'GET', '/dashboard/sign-in'),
      ])
        ids.push(res.headers.get('x-request-id')!);
      // A request that is recorded, after them: once it is there, so would they be.
      const marker = await client(setup.server.baseUrl, other.api_key).get('/v3/banks');
      await rowOf(marker.headers.get('x-request-id')!);
      expect(await count()).toBe(before + 1);
      expect(await table.selectFrom('request_logs').select('request_id').where('request_id', 'in', ids).execute()).toEqual([]);
    });

    it("dates a request on its account's clock", async () => {
      const account = await setup.server.account();
      await moveAccountClock(setup.server.ctx, account.receiver_id, { advance: '2d' });
      const res = await client(setup.server.baseUrl, account.api_key).get('/v3/banks');
      const row = await rowOf(res.headers.get('x-request-id')!);
      expect(row.at).toBeGreaterThan(Date.now() + 2 * DAY - 60_000);
    });

    if (store === 'file') {
      it("writes nothing to the API's database", async () => {
        const res = await client(setup.server.baseUrl, other.api_key).get('/v3/banks');
        await rowOf(res.headers.get('x-request-id')!);
        expect(await countRows(setup.server.ctx.db, 'request_logs')).toBe(0);
      });

      it.runIf(testDatabaseKind() === 'sqlite')("leaves the API database's change mark where it was: no cached payment is read again for it", async () => {
        const api = client(setup.server.baseUrl, other.api_key);
        // The account cached first, so that the request itself reads nothing.
        await rowOf((await api.get('/v3/banks')).headers.get('x-request-id')!);
        const before = changeMark(setup.server.ctx.db);
        await rowOf((await api.get('/v3/banks')).headers.get('x-request-id')!);
        expect(changeMark(setup.server.ctx.db)).toBe(before);
      });
    } else {
      it('makes no file of its own', async () => {
        const res = await client(setup.server.baseUrl, other.api_key).get('/v3/banks');
        await rowOf(res.headers.get('x-request-id')!);
        expect(fs.existsSync(path.join(setup.server.database.dataDir, REQUEST_LOG_FILE))).toBe(false);
      });
    }
  });

  describe("the dashboard's page", () => {
    it("lists the account's own requests with the ignored fields at a glance, filters them, and opens each", async () => {
      const account = await setup.server.account({ name: 'Listed shop' });
      const api = client(setup.server.baseUrl, account.api_key);
      const typo = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Typo', notifyurl: 'https://shop.test/hook' });
      const refused = await api.post('/v3/payments', { amount: -1, currency: 'CLP', subject: 'Refused' });
      const otherRes = await client(setup.server.baseUrl, other.api_key).get('/v3/banks');
      const typoRow = await rowOf(typo.headers.get('x-request-id')!);
      const refusedRow = await rowOf(refused.headers.get('x-request-id')!);
      const otherRow = await rowOf(otherRes.headers.get('x-request-id')!);
      const session = await signedIn(setup.server, account, 'owner@listed.test');

      const list = await session.get('/dashboard/requests');
      expect(list.status).toBe(200);
      expect(list.html).toContain('campos ignorados: notifyurl');
      const order = [...list.html.matchAll(/data-request-log-id="(\d+)"/g)].map((m) => Number(m[1]));
      expect(order).toEqual([refusedRow.request_log_id, typoRow.request_log_id]);
      expect(list.html).not.toContain(`data-request-log-id="${otherRow.request_log_id}"`);

      const errors = await session.get('/dashboard/requests?show=errors');
      expect([...errors.html.matchAll(/data-request-log-id="(\d+)"/g)].map((m) => Number(m[1]))).toEqual([refusedRow.request_log_id]);
      const ignored = await session.get('/dashboard/requests?show=ignored');
      expect([...ignored.html.matchAll(/data-request-log-id="(\d+)"/g)].map((m) => Number(m[1]))).toEqual([typoRow.request_log_id]);

      const detail = await session.get(`/dashboard/requests/${refusedRow.request_log_id}`);
      expect(detail.status).toBe(200);
      expect(detail.html).toContain('<pre class="body json"');
      // Pretty-printed: one member a line.
      expect(detail.html).toMatch(/\{\n  &quot;status&quot;: 400,/);
      const typoPage = await session.get(`/dashboard/requests/${typoRow.request_log_id}`);
      expect(typoPage.html).toContain('id="ignored-help"');

      for (const path of [`/dashboard/requests/${otherRow.request_log_id}`, '/dashboard/requests/99999999999', '/dashboard/requests/abc']) {
        expect((await session.get(path)).status, path).toBe(404);
      }
    });
  });

  describe("retention and an account's end", () => {
    it('prunes rows older than REQUEST_LOG_RETENTION_DAYS and keeps the others', async () => {
      const account = await setup.server.account();
      const now = setup.server.ctx.clocks.now().getTime();
      const row = (at: number, request_id: string) => ({
        receiver_id: account.receiver_id,
        at,
        method: 'GET',
        path: '/v3/banks',
        status: 200,
        duration_ms: 1,
        request_id,
        ignored_fields: null,
        error_body: null,
      });
      setup.server.ctx.requestRecords.add(row(now - 8 * DAY, 'old'));
      setup.server.ctx.requestRecords.add(row(now - 6 * DAY, 'recent'));
      await setup.server.ctx.requestRecords.flush();
      await pruneExpired(setup.server.ctx);
      expect((await rowsOf(account.receiver_id)).map((r) => r.request_id)).toEqual(['recent']);
    });

    it("goes with its sandbox account, and stays when the account's snapshot is restored", async () => {
      const created = await call(setup.server.baseUrl, 'POST', '/sandbox/accounts', { body: {} });
      expect(created.status).toBe(200);
      const { receiver_id: receiverId, api_key: apiKey } = created.body;
      const api = client(setup.server.baseUrl, apiKey);
      const first = await api.get('/v3/banks');
      await rowOf(first.headers.get('x-request-id')!);
      const snapshot = await call(setup.server.baseUrl, 'POST', `/sandbox/accounts/${receiverId}/snapshots`);
      expect(snapshot.status).toBe(200);
      const second = await api.get('/v3/banks');
      await rowOf(second.headers.get('x-request-id')!);
      const restored = await call(setup.server.baseUrl, 'POST', `/sandbox/accounts/${receiverId}/snapshots/${snapshot.body.snapshot_id}/restore`);
      expect(restored.status).toBe(200);
      expect((await rowsOf(receiverId)).map((r) => r.request_id)).toEqual([first.headers.get('x-request-id'), second.headers.get('x-request-id')]);

      // Its last request's row may still be in the process: written after the deletion, it finds the account gone.
      await api.get('/v3/banks');
      expect((await call(setup.server.baseUrl, 'DELETE', `/sandbox/accounts/${receiverId}`)).status).toBe(204);
      await setup.server.ctx.requestRecords.flush();
      expect(await rowsOf(receiverId)).toEqual([]);
    });
  });
});

describe('REQUEST_LOG_STORE', () => {
  it('is a file of its own in developer mode and the log stream with SANDBOX=false unless set; REQUEST_LOG_RETENTION_DAYS=0 turns it off', () => {
    expect(loadConfig({}).requestLogStore).toBe('file');
    expect(loadConfig(PRODUCTION_SETTINGS).requestLogStore).toBe('log');
    expect(loadConfig({ ...PRODUCTION_SETTINGS, REQUEST_LOG_STORE: 'database' }).requestLogStore).toBe('database');
    expect(loadConfig({ REQUEST_LOG_STORE: 'log' }).requestLogStore).toBe('log');
    expect(loadConfig({ REQUEST_LOG_STORE: 'database', REQUEST_LOG_RETENTION_DAYS: '0' }).requestLogStore).toBe('off');
    expect(() => loadConfig({ REQUEST_LOG_STORE: 'table' })).toThrow('REQUEST_LOG_STORE must be one of file, database, log, off, got "table"');
  });

  it('records nothing on the log stream at a level that writes no info line, so that no request builds a row', () => {
    expect(logStreamRecords(pino({ level: 'info' })).recording).toBe(true);
    expect(logStreamRecords(pino({ level: 'warn' })).recording).toBe(false);
  });
});

describe('a production installation (SANDBOX=false)', () => {
  const processes = withServerProcesses();

  it('writes a line of the log stream for each API request, and nothing to a table', async () => {
    const { database, started } = processes;
    const env = { ...PRODUCTION_SETTINGS, DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', RUN_WORKER: 'false' };
    expect((await quipu(['migrate'], env)).code).toBe(0);
    const created = await quipu(['merchants', 'create', '--name', 'Logged shop', '--production', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const { receiver_id: receiverId, api_key: apiKey } = JSON.parse(created.stdout);
    const server = await serveOnFreePort(env, started);

    const banks = await client(server.baseUrl, apiKey).get('/v3/banks');
    const missing = await client(server.baseUrl, apiKey).get('/v3/payments/nope?token=s3cr3t-token');
    expect([banks.status, missing.status]).toEqual([200, 404]);
    const lines = () => logLines(server).filter((line) => line.msg === 'api request');
    await expect.poll(lines, { timeout: 10_000 }).toHaveLength(2);
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 30,
        receiver_id: receiverId,
        method: 'GET',
        path: '/v3/banks',
        status: 200,
        request_id: banks.headers.get('x-request-id'),
      }),
      expect.objectContaining({
        receiver_id: receiverId,
        method: 'GET',
        path: '/v3/payments/nope',
        status: 404,
        request_id: missing.headers.get('x-request-id'),
      }),
    ]);
    expect(JSON.parse(String(lines()[1]!.error_body))).toEqual(missing.body);
    expect(lines()[0]).toMatchObject({ error_body: null, ignored_fields: null, duration_ms: expect.any(Number), at: expect.any(Number) });
    expect(server.output()).not.toContain(apiKey);
    expect(server.output()).not.toContain('s3cr3t-token');

    await server.stop();
    const opened = openDatabase(database.url);
    try {
      expect(await countRows(opened.db, 'request_logs')).toBe(0);
    } finally {
      await opened.close();
    }
    expect(fs.existsSync(path.join(database.dataDir, REQUEST_LOG_FILE))).toBe(false);
  }, 60_000);
});

describe("the dashboard's page where the log is not kept in a table", () => {
  const start = serversClosedAfterAll();

  it.each([
    ['SANDBOX=false', { SANDBOX: 'false', DASHBOARD_TWO_FACTOR: 'optional' }, 'en su flujo de logs'],
    ['REQUEST_LOG_RETENTION_DAYS=0', { REQUEST_LOG_RETENTION_DAYS: '0' }, 'no guarda las solicitudes a la API'],
  ])('says where it goes (%s), and finds no request', async (_name, env, words) => {
    const server = await start(env);
    const account = await server.account();
    await client(server.baseUrl, account.api_key).get('/v3/banks');
    const session = await signedIn(server, account, 'owner@elsewhere.test');
    const page = await session.get('/dashboard/requests');
    expect(page.status).toBe(200);
    expect(page.html).toMatch(new RegExp(`<p id="requests-elsewhere">[^<]*${words}`));
    expect(page.html).not.toContain('data-request-log-id');
    expect((await session.get('/dashboard/requests/1')).status).toBe(404);
  });
});
