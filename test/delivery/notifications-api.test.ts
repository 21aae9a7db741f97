// The merchant's view of its notifications (/quipu/v1) and the operator's (quipu notifications).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import type { Payment } from '../../src/domain/payment.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { quipu } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let ok: Receiver;
let failing: Receiver;
let worker: DeliveryWorker;
let a: TestAccount;
let b: TestAccount;
const paid: { a1: Payment; a2: Payment; a3: Payment; b1: Payment } = {} as never;
let env: Record<string, string>;

const apiA = () => client(server.baseUrl, a.api_key);
const idOf = async (account: TestAccount, payment: Payment) =>
  (await client(server.baseUrl, account.api_key).get(`/quipu/v1/notifications?payment_id=${payment.paymentId}`)).body.notifications[0]
    .notification_id as string;
const detail = (account: TestAccount, id: string) => client(server.baseUrl, account.api_key).get(`/quipu/v1/notifications/${id}`);

beforeAll(async () => {
  server = await startTestServer();
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn' };
  ok = await startReceiver();
  failing = await startReceiver(() => ({ status: 500 }));
  worker = testWorker(server);
  a = await server.account();
  b = await server.account();
  // A second apart on the developer clock, so "newest first" has one answer.
  const tick = () => apiA().post('/sandbox/clock', { advance: '1s' });
  paid.a1 = await reconciledPayment(server, a, { notify_url: ok.url });
  await tick();
  paid.a2 = await reconciledPayment(server, a, { notify_url: ok.url, notify_api_version: '1.3' });
  await tick();
  paid.a3 = await reconciledPayment(server, a, { notify_url: failing.url });
  paid.b1 = await reconciledPayment(server, b, { notify_url: ok.url });
  await eventually(
    async () => (await apiA().get('/quipu/v1/notifications')).body.notifications,
    (list) => list.every((n: { attempts: number }) => n.attempts > 0),
  );
});
afterAll(async () => {
  await worker?.stop();
  await ok?.close();
  await failing?.close();
  await server?.close();
});

describe('GET /quipu/v1/notifications', () => {
  it("lists the account's own notifications, newest first, with filters and paging", async () => {
    const all = await apiA().get('/quipu/v1/notifications');
    expect(all.status).toBe(200);
    expect(all.body.has_more).toBe(false);
    expect(all.body.notifications.map((n: { payment_id: string }) => n.payment_id)).toEqual([paid.a3.paymentId, paid.a2.paymentId, paid.a1.paymentId]);
    expect(all.body.notifications[0]).toMatchObject({
      receiver_id: a.receiver_id,
      status: 'pending',
      attempts: 1,
      api_version: '3.0',
      url: failing.url,
      delivered_at: null,
    });
    expect(all.body.notifications[1]).toMatchObject({ status: 'delivered', api_version: '1.3', next_attempt_at: null });

    const delivered = await apiA().get('/quipu/v1/notifications?status=delivered');
    expect(delivered.body.notifications.map((n: { payment_id: string }) => n.payment_id)).toEqual([paid.a2.paymentId, paid.a1.paymentId]);
    const one = await apiA().get(`/quipu/v1/notifications?payment_id=${paid.a1.paymentId}`);
    expect(one.body.notifications).toHaveLength(1);
    expect((await apiA().get(`/quipu/v1/notifications?payment_id=${paid.b1.paymentId}`)).body.notifications).toEqual([]);
    const page = await apiA().get('/quipu/v1/notifications?limit=2&offset=1');
    expect(page.body).toMatchObject({ has_more: false, notifications: [{ payment_id: paid.a2.paymentId }, { payment_id: paid.a1.paymentId }] });
    expect((await apiA().get('/quipu/v1/notifications?limit=1')).body.has_more).toBe(true);
  });

  it.each([
    ['status=lost', 'status'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=ten', 'limit'],
    ['offset=-1', 'offset'],
    ['receiver_id=1', 'receiver_id'],
  ])('refuses ?%s naming %s', async (query, field) => {
    const res = await apiA().get(`/quipu/v1/notifications?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('needs credentials', async () => {
    expect((await client(server.baseUrl, '').get('/quipu/v1/notifications')).status).toBe(401);
    expect((await client(server.baseUrl, '00000000-0000-4000-8000-000000000000').get('/quipu/v1/notifications')).status).toBe(401);
  });
});

describe('GET /quipu/v1/notifications/:id', () => {
  it('shows the body and every attempt; another account gets 404', async () => {
    const id = await idOf(a, paid.a3);
    const res = await detail(a, id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ notification_id: id, content_type: 'application/json', status: 'pending' });
    expect(JSON.parse(res.body.body).payment_id).toBe(paid.a3.paymentId);
    expect(res.body.attempt_log[0]).toMatchObject({ number: 1, trigger: 'first', outcome: 'failed', http_status: 500, latency_ms: expect.any(Number) });
    expect((await detail(b, id)).status).toBe(404);
    expect((await detail(a, 'no-such-notification')).status).toBe(404);
    const long = await detail(a, 'x'.repeat(65));
    expect(long.status).toBe(400);
    expect(long.body.errors[0].field).toBe('id');
  });
});

describe('POST /quipu/v1/notifications/:id/resend', () => {
  it('sends the same body with the same ids again, as a new attempt', async () => {
    const id = await idOf(a, paid.a1);
    const sent = ok.requests.filter((r) => r.body.includes(paid.a1.paymentId));
    expect(sent).toHaveLength(1);
    const delivered = (await detail(a, id)).body;
    expect(delivered.delivered_at).toEqual(expect.any(String));
    const res = await apiA().post(`/quipu/v1/notifications/${id}/resend`);
    expect(res.status).toBe(200);
    // A new round: not delivered again until a receiver answers 200 again.
    expect(res.body).toMatchObject({ notification_id: id, status: 'pending', attempts: 1, delivered_at: null, next_attempt_at: expect.any(String) });
    const after = await eventually(
      () => detail(a, id),
      (r) => r.body.status === 'delivered' && r.body.attempts === 2,
    );
    expect(after.body.attempt_log.map((x: { trigger: string; number: number }) => [x.number, x.trigger])).toEqual([
      [1, 'first'],
      [2, 'resend'],
    ]);
    expect(Date.parse(after.body.delivered_at)).toBeGreaterThanOrEqual(Date.parse(res.body.next_attempt_at));
    const again = ok.requests.filter((r) => r.body.includes(paid.a1.paymentId));
    expect(again).toHaveLength(2);
    expect(again[1]!.body).toBe(again[0]!.body);
    expect(again[1]!.headers['x-khipu-signature']).toMatch(/^t=\d+,s=/);
  });

  it("is 404 for another account's notification, which stays as it was", async () => {
    const id = await idOf(b, paid.b1);
    const before = (await detail(b, id)).body;
    expect((await apiA().post(`/quipu/v1/notifications/${id}/resend`)).status).toBe(404);
    expect((await detail(b, id)).body).toEqual(before);
  });

  it('is 409 while an attempt is in flight', async () => {
    let release!: () => void;
    const hanging = await startReceiver(() => ({ status: 200, after: new Promise<void>((r) => (release = r)) }));
    try {
      const payment = await reconciledPayment(server, a, { notify_url: hanging.url });
      await hanging.waitFor((requests) => requests.length === 1);
      const id = await idOf(a, payment);
      const res = await apiA().post(`/quipu/v1/notifications/${id}/resend`);
      expect(res.status).toBe(409);
      expect(res.headers.get('retry-after')).toBe('1');
      release();
      const done = await eventually(
        () => detail(a, id),
        (r) => r.body.status === 'delivered',
      );
      expect(done.body.attempts).toBe(1);
    } finally {
      await hanging.close();
    }
  });
});

describe('quipu notifications', () => {
  it('lists, shows and resends from the command line', async () => {
    const listed = await quipu(['notifications', 'list', '--receiver', String(a.receiver_id), '--json'], env);
    expect(listed.code).toBe(0);
    const views = JSON.parse(listed.stdout);
    expect(views.every((v: { receiver_id: number }) => v.receiver_id === a.receiver_id)).toBe(true);
    expect(views.map((v: { payment_id: string }) => v.payment_id)).toEqual(expect.arrayContaining([paid.a1.paymentId, paid.a2.paymentId, paid.a3.paymentId]));
    const byPayment = JSON.parse(
      (await quipu(['notifications', 'list', '--receiver', String(a.receiver_id), '--payment', paid.a2.paymentId, '--json'], env)).stdout,
    );
    expect(byPayment).toHaveLength(1);
    expect(byPayment[0]).toMatchObject({ payment_id: paid.a2.paymentId, api_version: '1.3', status: 'delivered' });

    const id = byPayment[0].notification_id;
    const shown = await quipu(['notifications', 'show', id], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`api_version=1.3&notification_token=${paid.a2.notificationToken}`);
    expect(shown.stdout).toMatch(/#1 first .* delivered +200/);

    const resent = await quipu(['notifications', 'resend', id, '--json'], env);
    expect(resent.code).toBe(0);
    expect(JSON.parse(resent.stdout)).toMatchObject({ notification_id: id, status: 'pending' });
    const after = await eventually(
      () => detail(a, id),
      (r) => r.body.attempts === 2 && r.body.status === 'delivered',
    );
    expect(after.body.attempt_log[1].trigger).toBe('resend');

    // Of two accounts, the one listed must be named.
    const unnamed = await quipu(['notifications', 'list', '--json'], env);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain('quipu: name the account with --receiver <receiver_id> (accounts: ');
    for (const account of [a, b]) expect(unnamed.stderr).toContain(String(account.receiver_id));
    const json = JSON.parse((await quipu(['notifications', 'show', id, '--json'], env)).stdout);
    expect(json.attempt_log.map((x: { trigger: string }) => x.trigger)).toEqual(['first', 'resend']);
  }, 90_000);

  it('explains unknown notifications and bad options', async () => {
    const missing = await quipu(['notifications', 'show', 'nope'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Notification not found');
    const resend = await quipu(['notifications', 'resend', 'nope'], env);
    expect(resend.code).toBe(2);
    const bad = await quipu(['notifications', 'list', '--status', 'lost'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('pending, delivered, exhausted');
  }, 60_000);
});
