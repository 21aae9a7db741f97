// Two days of retries, driven by the developer clock: every attempt happens when it is due, is
// recorded, and after the ninth the notification is exhausted and left alone. Moving the clock two
// days in one go makes the retries of those two days happen one after another, then stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { DELIVERY_WINDOW_MS, JITTER, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/domain/retry-schedule.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { quipu } from '../helpers/process.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';

let receiver: Receiver;
let worker: DeliveryWorker;

const setup = useTestServer();
beforeAll(async () => {
  receiver = await startReceiver(() => ({ status: 500, body: 'not yet' }));
  worker = testWorker(setup.server);
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
});

interface Attempt {
  number: number;
  trigger: string;
  due_at: string;
  started_at: string;
  outcome: string;
}

const api = (account: TestAccount = setup.account) => client(setup.server.baseUrl, account.api_key);
const clockNow = async () => Date.parse((await api().get('/sandbox/clock')).body.now);
const hitsOf = (paymentId: string) => receiver.requests.filter((r) => r.body.includes(paymentId)).length;

async function notificationReader(paymentId: string, account: TestAccount = setup.account) {
  const id = (await api(account).get(`/quipu/v1/notifications?payment_id=${paymentId}`)).body.notifications[0].notification_id;
  return async () => (await api(account).get(`/quipu/v1/notifications/${id}`)).body;
}

/** Each attempt was due one step of the schedule (less up to 10% jitter) after the one before. */
function expectTimetable(log: Attempt[]): void {
  for (let i = 1; i < log.length; i++) {
    const wait = Date.parse(log[i]!.due_at) - Date.parse(log[i - 1]!.due_at);
    expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_MS[i - 1]!);
    expect(wait).toBeGreaterThanOrEqual(Math.floor(RETRY_DELAYS_MS[i - 1]! * (1 - JITTER)));
  }
  expect(Date.parse(log.at(-1)!.due_at) - Date.parse(log[0]!.due_at)).toBeLessThanOrEqual(DELIVERY_WINDOW_MS);
}

function expectExhausted(n: { status: string; attempts: number; attempt_log: Attempt[] }): void {
  expect(n).toMatchObject({ status: 'exhausted', attempts: MAX_ATTEMPTS, next_attempt_at: null, delivered_at: null });
  expect(n.attempt_log.map((a) => a.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(n.attempt_log.map((a) => a.trigger)).toEqual(['first', ...new Array(8).fill('retry')]);
  for (const a of n.attempt_log) expect(a).toMatchObject({ outcome: 'failed', http_status: 500, error: 'HTTP 500', response_excerpt: 'not yet' });
  expectTimetable(n.attempt_log);
}

/** Exhausted means exhausted: two more days bring no further attempt. */
async function expectNothingMore(read: () => Promise<{ attempts: number }>, paymentId: string, account: TestAccount = setup.account): Promise<void> {
  expect((await api(account).post('/sandbox/clock', { advance: '2d' })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 300));
  expect((await read()).attempts).toBe(MAX_ATTEMPTS);
  expect(hitsOf(paymentId)).toBe(MAX_ATTEMPTS);
}

describe('retry schedule over two days', () => {
  it('retries at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h and 16 h, then stops', async () => {
    const payment = await reconciledPayment(setup.server, setup.account, { notify_url: receiver.url });
    const read = await notificationReader(payment.paymentId);
    const clockBefore = await clockNow();

    let n = await eventually(read, (v) => v.attempts === 1);
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      expect(n.status).toBe('pending');
      const due = n.next_attempt_at;
      expect((await api().post('/sandbox/clock', { to: due })).status).toBe(200);
      n = await eventually(read, (v) => v.attempts === attempt + 1);
      expect(n.attempt_log[attempt].due_at).toBe(due);
      expect(Date.parse(n.attempt_log[attempt].started_at)).toBeGreaterThanOrEqual(Date.parse(due));
    }

    expectExhausted(n);
    expect((await clockNow()) - clockBefore).toBeGreaterThan(40 * 3_600_000);
    expect(hitsOf(payment.paymentId)).toBe(MAX_ATTEMPTS);
    await expectNothingMore(read, payment.paymentId);
  });

  it('after `quipu clock advance 2d`, makes the retries of those two days one after another, then stops', async () => {
    // An account that never moved a clock of its own follows the installation's.
    const account = await setup.server.account();
    const payment = await reconciledPayment(setup.server, account, { notify_url: receiver.url });
    const read = await notificationReader(payment.paymentId, account);
    const first = await eventually(read, (v) => v.attempts === 1);

    const env = { DATABASE_URL: setup.server.database.url, DATA_DIR: setup.server.database.dataDir, LOG_LEVEL: 'warn' };
    const advanced = await quipu(['clock', 'advance', '2d'], env);
    expect(advanced.code).toBe(0);
    const jumpedTo = Date.parse(advanced.stdout.trim());

    // Every retry fell due during the two days skipped: each is made as soon as the one before has
    // failed, in order, and the log shows when each was due beside when it was made.
    const n = await eventually(read, (v) => v.status !== 'pending', 30_000);
    expectExhausted(n);
    expect(n.attempt_log[0].started_at).toBe(first.attempt_log[0].started_at);
    const retries: Attempt[] = n.attempt_log.slice(1);
    for (const a of retries) expect(Date.parse(a.started_at)).toBeGreaterThanOrEqual(jumpedTo);
    for (let i = 1; i < retries.length; i++) expect(Date.parse(retries[i]!.started_at)).toBeGreaterThanOrEqual(Date.parse(retries[i - 1]!.started_at));
    expect(Date.parse(retries.at(-1)!.due_at)).toBeLessThan(jumpedTo);
    expect(hitsOf(payment.paymentId)).toBe(MAX_ATTEMPTS);
    await expectNothingMore(read, payment.paymentId, account);
  }, 60_000);
});
