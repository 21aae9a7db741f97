// Two days of retries, driven by the developer clock: every attempt happens when it is due, is
// recorded, and after the ninth the notification is exhausted and left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { JITTER, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/domain/retry-schedule.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let receiver: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver(() => ({ status: 500, body: 'not yet' }));
  worker = testWorker(server);
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await server?.close();
});

describe('retry schedule over two days', () => {
  it('retries at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h and 16 h, then stops', async () => {
    const account = await server.account();
    const api = client(server.baseUrl, account.api_key);
    const payment = await reconciledPayment(server, account, { notify_url: receiver.url });
    const id = (await api.get(`/quipu/v1/notifications?payment_id=${payment.paymentId}`)).body.notifications[0].notification_id;
    const read = async () => (await api.get(`/quipu/v1/notifications/${id}`)).body;
    const clockBefore = Date.parse((await api.get('/sandbox/clock')).body.now);

    let n = await eventually(read, (v) => v.attempts === 1);
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      expect(n.status).toBe('pending');
      const wait = Date.parse(n.next_attempt_at) - Date.parse(n.updated_at);
      const step = RETRY_DELAYS_MS[attempt - 1]!;
      expect(wait).toBeLessThanOrEqual(step);
      expect(wait).toBeGreaterThanOrEqual(Math.floor(step * (1 - JITTER)));
      const due = n.next_attempt_at;
      expect((await api.post('/sandbox/clock', { to: due })).status).toBe(200);
      n = await eventually(read, (v) => v.attempts === attempt + 1);
      expect(Date.parse(n.attempt_log[attempt].started_at)).toBeGreaterThanOrEqual(Date.parse(due));
    }

    expect(n).toMatchObject({ status: 'exhausted', attempts: MAX_ATTEMPTS, next_attempt_at: null, delivered_at: null });
    expect(n.attempt_log.map((a: { number: number }) => a.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(n.attempt_log.map((a: { trigger: string }) => a.trigger)).toEqual(['first', ...new Array(8).fill('retry')]);
    for (const a of n.attempt_log) expect(a).toMatchObject({ outcome: 'failed', http_status: 500, error: 'HTTP 500', response_excerpt: 'not yet' });
    const span = Date.parse(n.attempt_log[8].started_at) - Date.parse(n.attempt_log[0].started_at);
    expect(span).toBeLessThanOrEqual(48 * 3_600_000);
    expect(Date.parse((await api.get('/sandbox/clock')).body.now) - clockBefore).toBeGreaterThan(40 * 3_600_000);
    expect(receiver.requests.filter((r) => r.body.includes(payment.paymentId))).toHaveLength(MAX_ATTEMPTS);

    // Exhausted means exhausted: two more days bring no further attempt.
    expect((await api.post('/sandbox/clock', { advance: '2d' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await read()).attempts).toBe(MAX_ATTEMPTS);
    expect(receiver.requests.filter((r) => r.body.includes(payment.paymentId))).toHaveLength(MAX_ATTEMPTS);
  });
});
