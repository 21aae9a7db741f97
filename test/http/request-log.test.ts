// Each account's log of its API requests (docs/request-logs.md), over HTTP on a real server: a
// misspelled notifyurl is recorded with the ignored field, a 400 with its error answer, nothing of
// the credentials, the body or the query string; only authenticated API requests are recorded, on
// the account's clock; the dashboard lists an account's own requests with filters and shows each one,
// another account's is not found; pruning keeps REQUEST_LOG_RETENTION_DAYS; deleting a sandbox
// account removes its rows, restoring a snapshot leaves them.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { moveAccountClock } from '../../src/app/developer-clock.js';
import { pruneExpired } from '../../src/app/prune-expired.js';
import { insertRequestLogs } from '../../src/store/request-logs.js';
import type { RequestLogRow } from '../../src/store/schema.js';
import { call, client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, type TestAccount, useTestServer } from '../helpers/server.js';

const DAY = 86_400_000;
const setup = useTestServer();
let other: TestAccount;

beforeAll(async () => {
  other = await setup.server.account({ name: 'Other shop' });
});

const db = () => setup.server.ctx.db;
const rowsOf = (receiverId: number) =>
  db().selectFrom('request_logs').selectAll().where('receiver_id', '=', receiverId).orderBy('request_log_id').execute() as Promise<RequestLogRow[]>;
/** The row of the request whose answer carried this x-request-id, once written. */
const rowOf = async (requestId: string) =>
  (
    await eventually(
      () => db().selectFrom('request_logs').selectAll().where('request_id', '=', requestId).execute(),
      (rows) => rows.length === 1,
    )
  )[0]!;

async function signedIn(account: TestAccount, email: string): Promise<PayerSession> {
  await addDashboardUser(setup.server.ctx, account.receiver_id, { email, password: CHOSEN_PASSWORD });
  const session = new PayerSession(setup.server.baseUrl);
  const form = await session.get('/dashboard/sign-in');
  const answer = await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email, password: CHOSEN_PASSWORD });
  expect(answer.status).toBe(303);
  return session;
}

describe('the request log', () => {
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
    const before = await db()
      .selectFrom('request_logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
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
    const after = await db()
      .selectFrom('request_logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) + 1);
    expect(await db().selectFrom('request_logs').select('request_id').where('request_id', 'in', ids).execute()).toEqual([]);
  });

  it("dates a request on its account's clock", async () => {
    const account = await setup.server.account();
    await moveAccountClock(setup.server.ctx, account.receiver_id, { advance: '2d' });
    const res = await client(setup.server.baseUrl, account.api_key).get('/v3/banks');
    const row = await rowOf(res.headers.get('x-request-id')!);
    expect(row.at).toBeGreaterThan(Date.now() + 2 * DAY - 60_000);
  });
});

describe("the request log's dashboard page", () => {
  it("lists the account's own requests with the ignored fields at a glance, filters them, and opens each", async () => {
    const account = await setup.server.account({ name: 'Listed shop' });
    const api = client(setup.server.baseUrl, account.api_key);
    const typo = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Typo', notifyurl: 'https://shop.test/hook' });
    const refused = await api.post('/v3/payments', { amount: -1, currency: 'CLP', subject: 'Refused' });
    const otherRes = await client(setup.server.baseUrl, other.api_key).get('/v3/banks');
    const typoRow = await rowOf(typo.headers.get('x-request-id')!);
    const refusedRow = await rowOf(refused.headers.get('x-request-id')!);
    const otherRow = await rowOf(otherRes.headers.get('x-request-id')!);
    const session = await signedIn(account, 'owner@listed.test');

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

describe("the request log's retention and an account's end", () => {
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
    await insertRequestLogs(db(), [row(now - 8 * DAY, 'old'), row(now - 6 * DAY, 'recent')]);
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

    await api.get('/v3/banks');
    expect((await call(setup.server.baseUrl, 'DELETE', `/sandbox/accounts/${receiverId}`)).status).toBe(204);
    // Rows are written in the order their requests were answered: once a later request's row is
    // there, the last one of the deleted account was written too, or dropped as no account's.
    const marker = await client(setup.server.baseUrl, other.api_key).get('/v3/banks');
    await rowOf(marker.headers.get('x-request-id')!);
    expect(await rowsOf(receiverId)).toEqual([]);
  });
});
