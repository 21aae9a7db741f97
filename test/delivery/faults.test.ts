// Receivers that are down, hang, fail or redirect: their notifications are retried on schedule and
// never hold up the others.
import { afterAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';

const receivers: Receiver[] = [];
const workers: DeliveryWorker[] = [];

const setup = useTestServer();
afterAll(async () => {
  for (const w of workers) await w.stop();
  for (const r of receivers) await r.close();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

const api = () => client(setup.server.baseUrl, setup.account.api_key);

async function notificationOf(paymentId: string) {
  const list = await api().get(`/quipu/v1/notifications?payment_id=${paymentId}`);
  return (await api().get(`/quipu/v1/notifications/${list.body.notifications[0].notification_id}`)).body;
}

const withAttempts = (paymentId: string, attempts: number) =>
  eventually(
    () => notificationOf(paymentId),
    (n) => n.attempts >= attempts,
  );

describe('faulty receivers', () => {
  it('retries receivers that are down, slow, failing or redirecting while the others are delivered', async () => {
    let releaseSlow!: () => void;
    const slowAnswer = new Promise<void>((resolve) => (releaseSlow = resolve));
    const down = await receiver();
    await down.close();
    const slow = await receiver(() => ({ status: 200, after: slowAnswer }));
    const failing = await receiver(() => ({ status: 500, body: 'database is down' }));
    const target = await receiver();
    const redirecting = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const healthy = await receiver();

    const faulty = {
      down: await reconciledPayment(setup.server, setup.account, { notify_url: down.url }),
      slow: await reconciledPayment(setup.server, setup.account, { notify_url: slow.url }),
      failing: await reconciledPayment(setup.server, setup.account, { notify_url: failing.url }),
      redirecting: await reconciledPayment(setup.server, setup.account, { notify_url: redirecting.url }),
    };
    const good = [];
    for (let i = 0; i < 20; i++) good.push(await reconciledPayment(setup.server, setup.account, { notify_url: healthy.url }));

    // Four slots: the hanging receiver may hold one of them, never the loop.
    workers.push(testWorker(setup.server, { concurrency: 4, batchSize: 4, timeoutMs: 3_000 }));
    await healthy.waitFor((requests) => requests.length === good.length);
    expect(slow.open()).toBe(1);
    for (const p of good) expect(healthy.requests.some((r) => r.body.includes(p.paymentId))).toBe(true);

    const first = {
      down: await withAttempts(faulty.down.paymentId, 1),
      slow: await withAttempts(faulty.slow.paymentId, 1),
      failing: await withAttempts(faulty.failing.paymentId, 1),
      redirecting: await withAttempts(faulty.redirecting.paymentId, 1),
    };
    expect(first.down.attempt_log[0]).toMatchObject({ outcome: 'failed', http_status: null, error: expect.stringContaining('ECONNREFUSED') });
    expect(first.slow.attempt_log[0]).toMatchObject({ outcome: 'failed', http_status: null, error: 'timeout: no complete answer within 3000 ms' });
    expect(first.failing.attempt_log[0]).toMatchObject({ outcome: 'failed', http_status: 500, error: 'HTTP 500', response_excerpt: 'database is down' });
    expect(first.redirecting.attempt_log[0]).toMatchObject({ outcome: 'failed', http_status: 302, error: 'HTTP 302 (redirects are not followed)' });
    expect(target.requests).toHaveLength(0);
    for (const n of Object.values(first)) {
      expect(n.status).toBe('pending');
      // The first retry is due 5 s (less up to 10% jitter) after the first attempt was due; on a
      // loaded machine those 5 s may pass before this reads, and the retry has been made already.
      const wait = Date.parse(n.attempt_log[1]?.due_at ?? n.next_attempt_at) - Date.parse(n.attempt_log[0].due_at);
      expect(wait).toBeGreaterThanOrEqual(4_500);
      expect(wait).toBeLessThanOrEqual(5_000);
    }

    // Nothing is retried before it is due; moving the developer clock past the 5 s makes every one due.
    expect((await api().post('/sandbox/clock', { advance: '6s' })).status).toBe(200);
    for (const p of Object.values(faulty)) expect((await withAttempts(p.paymentId, 2)).attempt_log[1].trigger).toBe('retry');

    failing.answer(() => ({ status: 200 }));
    releaseSlow();
    slow.answer(() => ({ status: 200 }));
    expect((await api().post('/sandbox/clock', { advance: '6m' })).status).toBe(200);
    const recovered = await eventually(
      () => notificationOf(faulty.failing.paymentId),
      (n) => n.status === 'delivered',
    );
    expect(recovered.attempt_log.map((a: { outcome: string }) => a.outcome)).toEqual(['failed', 'failed', 'delivered']);
    expect(
      (
        await eventually(
          () => notificationOf(faulty.slow.paymentId),
          (n) => n.status === 'delivered',
        )
      ).attempts,
    ).toBe(3);
    expect((await withAttempts(faulty.down.paymentId, 3)).status).toBe('pending');
    expect((await withAttempts(faulty.redirecting.paymentId, 3)).status).toBe('pending');
    expect(target.requests).toHaveLength(0);
    // The same body on every attempt.
    expect(new Set(failing.requests.map((r) => r.body)).size).toBe(1);
  });

  it('counts only 200 as delivered: 201 and 204 are failed attempts, retried', async () => {
    const created = await receiver(() => ({ status: 201, body: 'created' }));
    const noContent = await receiver(() => ({ status: 204 }));
    workers.push(testWorker(setup.server));
    const payments = {
      201: await reconciledPayment(setup.server, setup.account, { notify_url: created.url }),
      204: await reconciledPayment(setup.server, setup.account, { notify_url: noContent.url }),
    };
    for (const [status, payment] of Object.entries(payments)) {
      const n = await withAttempts(payment.paymentId, 1);
      expect(n).toMatchObject({ status: 'pending', delivered_at: null, next_attempt_at: expect.any(String) });
      expect(n.attempt_log[0]).toMatchObject({ outcome: 'failed', http_status: Number(status), error: `HTTP ${status}` });
    }
  });

  it('records the beginning of a long answer', async () => {
    const chatty = await receiver(() => ({ status: 200, body: 'a'.repeat(600) + 'b'.repeat(200_000) }));
    workers.push(testWorker(setup.server));
    const payment = await reconciledPayment(setup.server, setup.account, { notify_url: chatty.url });
    const n = await eventually(
      () => notificationOf(payment.paymentId),
      (v) => v.status !== 'pending',
    );
    expect(n.status).toBe('delivered');
    expect(n.attempt_log[0]).toMatchObject({ outcome: 'delivered', http_status: 200, response_excerpt: 'a'.repeat(500) });
  });

  it('honours Retry-After by waiting longer than the schedule would', async () => {
    const busy = await receiver(() => ({ status: 503, headers: { 'retry-after': '3600' } }));
    workers.push(testWorker(setup.server));
    const payment = await reconciledPayment(setup.server, setup.account, { notify_url: busy.url });
    const n = await withAttempts(payment.paymentId, 1);
    expect(n.attempt_log[0]).toMatchObject({ http_status: 503, outcome: 'failed' });
    expect(Date.parse(n.next_attempt_at) - Date.parse(n.updated_at)).toBe(3_600_000);
  });
});
