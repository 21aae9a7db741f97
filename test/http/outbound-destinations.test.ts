// Where notifications may go, by the installation's rules (ASVS 12.3.1, 13.2.4, 13.2.5): a
// production installation (SANDBOX=false) refuses plain http notify URLs wherever one is given
// (v3 and v2 payments, subscriptions, receivers, an account's settings) with a 400 naming the
// field that writes nothing, unless NOTIFY_URL_ALLOW_HTTP says otherwise; NOTIFY_URL_ALLOWED_HOSTS
// limits every URL to an allowlist, at create and again before each attempt; a developer-mode
// installation keeps the provider's rules (http allowed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { loadConfig } from '../../src/config.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { call, client } from '../helpers/http.js';
import { eventually, type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { countRows } from '../helpers/payments.js';
import { validReceiver } from '../helpers/receivers.js';
import { serversClosedAfterAll, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { NEW_SUBSCRIPTION } from '../helpers/subscriptions.js';

const NEW_PAYMENT = { amount: 1000, currency: 'CLP', subject: 'Outbound' };
const HTTPS_ONLY = 'must be an https URL: this installation sends notifications over TLS only';
const NOT_ALLOWED = "names a host this installation's operator does not allow notifications to";

const started = serversClosedAfterAll();

const v2Form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/**
 * The first attempt at `storedUrl` of a notification made for an allowed URL and then aimed at
 * `storedUrl`, as one stored before the rules would be, before any worker runs.
 */
async function firstAttemptAt(server: TestServer, account: TestAccount, storedUrl: string) {
  const payment = await reconciledPayment(server, account, { notify_url: 'https://hooks.example.net/n' });
  await server.ctx.db.updateTable('messages').set({ url: storedUrl }).where('subject_id', '=', payment.paymentId).execute();
  const worker = testWorker(server);
  try {
    const api = client(server.baseUrl, account.api_key);
    const id = (await api.get(`/quipu/v1/notifications?payment_id=${payment.paymentId}`)).body.notifications[0].notification_id;
    const attempted = await eventually(
      async () => (await api.get(`/quipu/v1/notifications/${id}`)).body,
      (n) => n.attempts > 0,
    );
    return { attempt: attempted.attempt_log[0], paymentId: payment.paymentId };
  } finally {
    await worker.stop();
  }
}

describe('a production installation (SANDBOX=false)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await started({ SANDBOX: 'false' });
  });

  it('refuses an http notify_url wherever one is given, writing nothing', async () => {
    const account = await server.account({ developer: false, features: { integrator: true }, notifyHosts: 'shop.example,merchant.example' });
    const api = client(server.baseUrl, account.api_key);
    const before = await Promise.all((['payments', 'subscriptions', 'merchants'] as const).map((table) => countRows(server.ctx.db, table)));

    const v3 = await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'http://shop.example/notify' });
    expect(v3.status).toBe(400);
    expect(v3.body.errors).toEqual([{ field: 'notify_url', message: HTTPS_ONLY }]);

    const v2 = await call(server.baseUrl, 'POST', '/2.0/payments', {
      apiKey: account.api_key,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: v2Form({ subject: 'Outbound', currency: 'CLP', amount: '1000', notify_url: 'http://shop.example/notify' }),
    });
    expect(v2.status).toBe(400);
    expect(JSON.stringify(v2.body)).toContain('notify_url');
    expect(JSON.stringify(v2.body)).toContain(HTTPS_ONLY);

    const subscription = await api.post('/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, notify_url: 'http://merchant.example/subscription' });
    expect(subscription.status).toBe(400);
    expect(JSON.stringify(subscription.body)).toContain('notify_url');

    const receiver = await api.post('/v3/receivers', { ...validReceiver, notify_url: 'http://shop.example/notify' });
    expect(receiver.status).toBe(400);
    expect(receiver.body.errors).toEqual([{ field: 'notify_url', message: HTTPS_ONLY }]);

    await expect(updateMerchant(server.ctx, account.receiver_id, { notifyUrl: 'http://shop.example/notify' })).rejects.toMatchObject({
      fields: [{ field: 'notify_url', message: HTTPS_ONLY }],
    });
    expect(await Promise.all((['payments', 'subscriptions', 'merchants'] as const).map((table) => countRows(server.ctx.db, table)))).toEqual(before);

    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://shop.example/notify' })).status).toBe(200);
  });

  it('does not send to an http URL stored before the rule, saying why', async () => {
    const { attempt } = await firstAttemptAt(
      server,
      await server.account({ developer: false, notifyHosts: 'hooks.example.net' }),
      'http://hooks.example.net/n',
    );
    expect(attempt).toMatchObject({ outcome: 'failed', http_status: null, error: `refused: hooks.example.net ${HTTPS_ONLY}` });
  });

  it('takes http when NOTIFY_URL_ALLOW_HTTP says so (an internal network)', async () => {
    const internal = await started({ SANDBOX: 'false', NOTIFY_URL_ALLOW_HTTP: 'true' });
    const account = await internal.account({ developer: false, notifyHosts: 'shop.example' });
    expect((await client(internal.baseUrl, account.api_key).post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'http://shop.example/notify' })).status).toBe(
      200,
    );
  });
});

describe('a developer-mode installation', () => {
  it('keeps the provider’s rule: http notify URLs are taken', async () => {
    const server = await started({});
    const account = await server.account({ developer: false });
    expect((await client(server.baseUrl, account.api_key).post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'http://shop.example/notify' })).status).toBe(200);
  });
});

describe('NOTIFY_URL_ALLOWED_HOSTS', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver?.close());

  it('refuses at create every host outside the allowlist; `*.name` takes the names under it only', async () => {
    const server = await started({ SANDBOX: 'false', NOTIFY_URL_ALLOWED_HOSTS: '*.shop.example, hooks.example.net' });
    // The account registered every host it is sent to: the operator's allowlist is what refuses here.
    const account = await server.account({ developer: false, notifyHosts: '*.shop.example, hooks.example.net, shop.example, evilshop.example' });
    const api = client(server.baseUrl, account.api_key);
    for (const [url, status] of [
      ['https://pay.shop.example/n', 200],
      ['https://a.b.shop.example/n', 200],
      ['https://HOOKS.example.net./n', 200],
      ['https://shop.example/n', 400],
      ['https://evilshop.example/n', 400],
      ['https://hooks.example.net.evil.example/n', 400],
    ] as const) {
      const answer = await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: url });
      expect(answer.status, url).toBe(status);
      if (status === 400) expect(answer.body.errors).toEqual([{ field: 'notify_url', message: NOT_ALLOWED }]);
    }
    await expect(updateMerchant(server.ctx, account.receiver_id, { notifyUrl: 'https://elsewhere.example/n' })).rejects.toMatchObject({
      fields: [{ field: 'notify_url', message: NOT_ALLOWED }],
    });
  });

  it('refuses at delivery a URL stored before the allowlist, and delivers to a host on it', async () => {
    // Developer-mode installation, so that a receiver on loopback is reachable at all: the allowlist decides.
    const server = await started({ NOTIFY_URL_ALLOWED_HOSTS: 'hooks.example.net' });
    const { attempt, paymentId } = await firstAttemptAt(server, await server.account(), receiver.url);
    expect(attempt).toMatchObject({ outcome: 'failed', http_status: null, error: `refused: ${new URL(receiver.url).hostname} ${NOT_ALLOWED}` });
    expect(receiver.requests.some((r) => r.body.includes(paymentId))).toBe(false);

    const listed = await started({ NOTIFY_URL_ALLOWED_HOSTS: '127.0.0.1' });
    const listedWorker = testWorker(listed);
    try {
      const account = await listed.account({ notifyUrl: receiver.url });
      const payment = await reconciledPayment(listed, account);
      await receiver.waitFor((requests) => requests.some((r) => r.body.includes(payment.paymentId)));
    } finally {
      await listedWorker.stop();
    }
  });

  it('is refused at start when an entry is not a host', () => {
    expect(() => loadConfig({ NOTIFY_URL_ALLOWED_HOSTS: 'https://shop.example/' })).toThrow(/NOTIFY_URL_ALLOWED_HOSTS must list host names/);
    expect(loadConfig({ NOTIFY_URL_ALLOWED_HOSTS: '*.Shop.Example., [::1], 10.0.0.7' }).notifyDestinations.allowedHosts).toEqual([
      '*.shop.example',
      '::1',
      '10.0.0.7',
    ]);
  });
});
