// A reconciled payment's notification reaches the merchant's receiver in the provider's formats.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDb } from '../../src/app/context.js';
import { reconcilePayment } from '../../src/app/reconcile-payment.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { countRows, DEMO_CREDIT } from '../helpers/payments.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inTransaction } from '../../src/store/transaction.js';
import { v2Client } from '../helpers/v2-clients.js';

let server: TestServer;
let receiver: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  worker = testWorker(server);
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await server?.close();
});

const forPayment = (id: string) => (requests: Receiver['requests']) => requests.some((r) => r.body.includes(id));

describe('notification formats', () => {
  it('delivers 3.0: the payment as JSON, signed with the receiver secret', async () => {
    const account = await server.account();
    const payment = await reconciledPayment(server, account, { notify_url: receiver.url, notify_api_version: '3.0', transaction_id: 'INV-1/2', custom: 'c' });
    await receiver.waitFor(forPayment(payment.paymentId));
    const request = receiver.requests.find((r) => r.body.includes(payment.paymentId))!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');

    // Verified as a merchant plugin does: HMAC-SHA256 of t + "." + raw body, keyed with the secret.
    const [, t, s] = /^t=(\d+),s=(.+)$/.exec(String(request.headers['x-khipu-signature']))!;
    expect(createHmac('sha256', account.secret).update(`${t}.${request.body}`).digest('base64')).toBe(s);
    expect(createHmac('sha256', account.api_key).update(`${t}.${request.body}`).digest('base64')).not.toBe(s);

    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      payment_id: payment.paymentId,
      receiver_id: account.receiver_id,
      subject: 'Order 1',
      amount: '1000.0000',
      discount: '0.0000',
      currency: 'CLP',
      bank: 'DemoBank',
      bank_id: 'Bawdf',
      payer_email: DEMO_CREDIT.payerEmail,
      personal_identifier: DEMO_CREDIT.personalIdentifier,
      out_of_date_conciliation: false,
      transaction_id: 'INV-1/2',
      payment_method: 'simplified_transfer',
      conciliation_date: payment.conciliationAt!.toISOString(),
      custom: 'c',
    });
    expect(request.body).toContain('"transaction_id":"INV-1\\/2"');

    const api = client(server.baseUrl, account.api_key);
    const list = await api.get(`/quipu/v1/notifications?payment_id=${payment.paymentId}`);
    expect(list.body.notifications).toHaveLength(1);
    // The receiver answers before the attempt is recorded.
    const detail = await eventually(
      () => api.get(`/quipu/v1/notifications/${list.body.notifications[0].notification_id}`),
      (r) => r.body.status !== 'pending',
    );
    expect(detail.body).toMatchObject({ status: 'delivered', attempts: 1, api_version: '3.0', url: receiver.url, body: request.body });
    expect(detail.body.attempt_log).toEqual([
      expect.objectContaining({ number: 1, trigger: 'first', outcome: 'delivered', http_status: 200, error: null, response_excerpt: 'ok' }),
    ]);
  });

  it('delivers 1.3: a form whose token resolves to the paid payment', async () => {
    const account = await server.account();
    const payment = await reconciledPayment(server, account, { notify_url: receiver.url, notify_api_version: '1.3' });
    await receiver.waitFor(forPayment(payment.notificationToken));
    const request = receiver.requests.find((r) => r.body.includes(payment.notificationToken))!;
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.headers['x-khipu-signature']).toBeUndefined();
    const form = new URLSearchParams(request.body);
    expect([...form.keys()]).toEqual(['api_version', 'notification_token']);
    expect(form.get('api_version')).toBe('1.3');
    // Resolved as a merchant's v2 client does: a signed GET /2.0/payments?notification_token=.
    const v2 = v2Client('php', account, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });
    const resolved = await v2.request('GET', '/payments', { query: { notification_token: form.get('notification_token')! } });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      payment_id: payment.paymentId,
      notification_token: payment.notificationToken,
      status: 'done',
      amount: 1000,
      currency: 'CLP',
      receiver_id: account.receiver_id,
      conciliation_date: payment.conciliationAt!.toISOString(),
    });
  });

  it("takes the version and URL from the payment, else from the account's defaults", async () => {
    const other = await startReceiver();
    try {
      const account = await server.account({ notifyUrl: other.url, notifyApiVersion: '1.3' });
      const byDefault = await reconciledPayment(server, account);
      const overridden = await reconciledPayment(server, account, { notify_url: receiver.url, notify_api_version: '3.0' });
      await other.waitFor(forPayment(byDefault.notificationToken));
      await receiver.waitFor(forPayment(overridden.paymentId));
      expect(other.requests.find((r) => r.body.includes(byDefault.notificationToken))!.body).toMatch(/^api_version=1\.3&/);
      expect(JSON.parse(receiver.requests.find((r) => r.body.includes(overridden.paymentId))!.body).payment_id).toBe(overridden.paymentId);
      expect(other.requests.some((r) => r.body.includes(overridden.paymentId))).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('keeps no notification when neither the payment nor the account has a URL', async () => {
    const account = await server.account({ notifyUrl: null });
    const before = await countRows(server.ctx.db, 'notifications');
    const payment = await reconciledPayment(server, account);
    expect(payment.status).toBe('done');
    expect(await countRows(server.ctx.db, 'notifications')).toBe(before);
  });

  it('writes the notification in the reconciliation transaction: a failed reconciliation leaves none', async () => {
    const account = await server.account();
    const api = client(server.baseUrl, account.api_key);
    const created = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Rolled back', notify_url: receiver.url });
    const before = await countRows(server.ctx.db, 'notifications');
    await expect(
      inTransaction(server.ctx.db, async (trx) => {
        await reconcilePayment(withDb(server.ctx, trx), account.merchant, created.body.payment_id, { ...DEMO_CREDIT, creditedAt: server.ctx.clock.now() });
        throw new Error('a later write of the same change failed');
      }),
    ).rejects.toThrow('a later write');
    expect(await countRows(server.ctx.db, 'notifications')).toBe(before);
    expect((await api.get(`/v3/payments/${created.body.payment_id}`)).body.status).toBe('pending');
  });
});
