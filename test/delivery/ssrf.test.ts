// Production accounts cannot aim notifications at this machine or its network: refused when the
// payment is created (address literals) and when delivering (the address actually connected to).
// Developer-mode accounts may: a receiver on localhost is what they integrate against, on an
// installation with the sandbox on; but not a link-local address (a cloud's metadata service at
// 169.254.169.254), unless the operator allows it (NOTIFY_URL_ALLOW_LINK_LOCAL). A production
// installation (SANDBOX=false) refuses such targets for every account, and opens no demo account
// unless told to.
import resolver from 'node:dns';
import dns from 'node:dns/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MERCHANT_TOPIC } from '../../src/app/merchant-directory.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { neverResolvesReason, standInReceiver } from '../../src/domain/stand-in-receivers.js';
import { loadConfig } from '../../src/config.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { startRuntime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { createTestDatabase } from '../helpers/database.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { countRows } from '../helpers/payments.js';
import { validReceiver } from '../helpers/receivers.js';
import { freePort, startServerProcess, waitForHttp } from '../helpers/process.js';
import { PRODUCTION_SETTINGS } from '../helpers/production.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

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

async function onlyNotification(apiKey: string, paymentId: string, on: TestServer = server) {
  const api = client(on.baseUrl, apiKey);
  const id = (await api.get(`/quipu/v1/notifications?payment_id=${paymentId}`)).body.notifications[0].notification_id;
  return eventually(
    async () => (await api.get(`/quipu/v1/notifications/${id}`)).body,
    (n) => n.attempts > 0,
  );
}

describe('notify_url at payment creation', () => {
  it.each([
    ['http://127.0.0.1:8080/notify', 'is a loopback address'],
    ['http://localhost/notify', 'localhost'],
    ['http://[::1]/notify', 'is a loopback address'],
    ['http://169.254.169.254/latest/meta-data', 'is a link-local address'],
    ['http://10.0.0.7/notify', 'is a private address'],
    ['http://0x7f000001/notify', 'is a loopback address'],
    ['http://[::ffff:192.168.0.1]/notify', 'is a private address'],
  ])('refuses %s for a production account', async (url, reason) => {
    const production = await server.account({ developer: false });
    const before = await countRows(server.ctx.db, 'payments');
    const res = await client(server.baseUrl, production.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x', notify_url: url });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'notify_url', message: expect.stringContaining(reason) }]);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });

  it('accepts public addresses for production accounts, and local ones for developer accounts', async () => {
    const production = await server.account({ developer: false });
    expect(
      (await client(server.baseUrl, production.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x', notify_url: 'https://8.8.8.8/n' }))
        .status,
    ).toBe(200);
    const developer = await server.account();
    expect(
      (
        await client(server.baseUrl, developer.api_key).post('/v3/payments', {
          amount: 1000,
          currency: 'CLP',
          subject: 'x',
          notify_url: 'http://127.0.0.1:9/n',
        })
      ).status,
    ).toBe(200);
  });
});

describe("an account's default notify_url", () => {
  it('follows the same rule when the account is opened, changed, or moved to production', async () => {
    const before = await countRows(server.ctx.db, 'merchants');
    await expect(server.account({ developer: false, notifyUrl: 'http://10.0.0.7/notify' })).rejects.toMatchObject({
      fields: [{ field: 'notify_url', message: expect.stringContaining('is a private address') }],
    });
    await expect(server.account({ developer: false, notifyUrl: 'not a url' })).rejects.toMatchObject({ fields: [{ field: 'notify_url' }] });
    expect(await countRows(server.ctx.db, 'merchants')).toBe(before);
    const developer = await server.account({ notifyUrl: receiver.url });
    await expect(updateMerchant(server.ctx, developer.receiver_id, { developer: false })).rejects.toMatchObject({ fields: [{ field: 'notify_url' }] });
    const production = await server.account({ developer: false, notifyUrl: 'https://8.8.8.8/n' });
    await expect(updateMerchant(server.ctx, production.receiver_id, { notifyUrl: 'http://localhost/n' })).rejects.toMatchObject({
      fields: [{ field: 'notify_url' }],
    });
    expect((await server.ctx.merchants.byReceiverId(production.receiver_id))!.notifyUrl).toBe('https://8.8.8.8/n');
  });
});

/** An account whose default notify URL was stored before today's rules (written to the database directly). */
async function withStoredNotifyUrl(on: TestServer, account: TestAccount, url: string): Promise<TestAccount> {
  await on.ctx.db.updateTable('merchants').set({ notify_url: url }).where('receiver_id', '=', account.receiver_id).execute();
  await on.ctx.feed.publish(on.ctx.db, MERCHANT_TOPIC, String(account.receiver_id));
  return { ...account, merchant: (await on.ctx.merchants.byReceiverId(account.receiver_id))! };
}

describe('delivery to non-public addresses', () => {
  it("refuses a production account's loopback URL, recording why, and sends nothing", async () => {
    // Accounts cannot be given such a default any more; one stored before that rule (or reached
    // through DNS, below) is still refused by the worker, which judges every address it sends to.
    const opened = await server.account({ developer: false, notifyUrl: 'https://shop.example/notify' });
    const production = await withStoredNotifyUrl(server, opened, receiver.url);
    const payment = await reconciledPayment(server, production);
    const n = await onlyNotification(production.api_key, payment.paymentId);
    expect(n.status).toBe('pending');
    expect(n.attempt_log[0]).toMatchObject({
      outcome: 'failed',
      http_status: null,
      error: expect.stringMatching(/^refused: 127\.0\.0\.1 is a loopback address; only public internet addresses may be notified/),
    });
    expect(receiver.requests.some((r) => r.body.includes(payment.paymentId))).toBe(false);
  });

  it('judges a name by the address it resolves to', async (context) => {
    const host = os.hostname();
    const resolved = await dns.lookup(host, { all: true }).catch(() => []);
    // The machine's own name is the one name sure to resolve here to one of its own addresses.
    if (resolved.length === 0 || resolved.some((r) => !/^(127\.|::1$)/.test(r.address))) context.skip();
    const production = await server.account({ developer: false, notifyUrl: receiver.url.replace('127.0.0.1', host) });
    const payment = await reconciledPayment(server, production);
    const n = await onlyNotification(production.api_key, payment.paymentId);
    expect(n.attempt_log[0].error).toMatch(new RegExp(`^refused: ${host} resolves to ${resolved[0]!.address.replace(/\./g, '\\.')}, a loopback address`));
    expect(receiver.requests.some((r) => r.body.includes(payment.paymentId))).toBe(false);
  });

  it("delivers a developer account's notification to the same loopback URL", async () => {
    const developer = await server.account({ notifyUrl: receiver.url });
    const payment = await reconciledPayment(server, developer);
    await receiver.waitFor((requests) => requests.some((r) => r.body.includes(payment.paymentId)));
    expect(
      (
        await eventually(
          () => onlyNotification(developer.api_key, payment.paymentId),
          (n) => n.status === 'delivered',
        )
      ).attempt_log[0].http_status,
    ).toBe(200);
  });
});

describe('link-local addresses', () => {
  const METADATA = 'http://169.254.169.254/latest/meta-data/iam/security-credentials/';
  const NO_LINK_LOCAL = 'link-local addresses are not notified unless the operator sets NOTIFY_URL_ALLOW_LINK_LOCAL=true';

  it.each([METADATA, 'http://[fe80::1]/notify', 'http://[::ffff:169.254.169.254]/notify'])("refuses %s as a developer account's notify_url", async (url) => {
    const developer = await server.account();
    const before = await countRows(server.ctx.db, 'payments');
    const res = await client(server.baseUrl, developer.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x', notify_url: url });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'notify_url', message: `is a link-local address; ${NO_LINK_LOCAL}` }]);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });

  it("refuses a developer account's link-local URL stored before, at delivery, and sends nothing", async () => {
    const developer = await withStoredNotifyUrl(server, await server.account(), METADATA);
    const payment = await reconciledPayment(server, developer);
    const n = await onlyNotification(developer.api_key, payment.paymentId);
    expect(n.attempt_log[0]).toMatchObject({
      outcome: 'failed',
      http_status: null,
      error: `refused: 169.254.169.254 is a link-local address; ${NO_LINK_LOCAL}`,
    });
  });

  it('judges a name by the address it resolves to, as a name whose owner makes it resolve to the metadata service', async () => {
    const lookup = resolver.lookup;
    const rebound = vi
      .spyOn(resolver, 'lookup')
      .mockImplementation(((hostname: string, options: object, callback: (...args: unknown[]) => void) =>
        hostname === 'hooks.rebound.example'
          ? callback(null, [{ address: '169.254.169.254', family: 4 }])
          : lookup(hostname, options, callback)) as typeof resolver.lookup);
    try {
      const developer = await server.account({ notifyUrl: 'http://hooks.rebound.example/notify' });
      const payment = await reconciledPayment(server, developer);
      const n = await onlyNotification(developer.api_key, payment.paymentId);
      expect(n.attempt_log[0]).toMatchObject({
        outcome: 'failed',
        http_status: null,
        error: `refused: hooks.rebound.example resolves to 169.254.169.254, a link-local address; ${NO_LINK_LOCAL}`,
      });
    } finally {
      rebound.mockRestore();
    }
  });

  it('sends nothing to a name under .invalid and asks no resolver for it: the stand-in receivers of the fixtures', async () => {
    const lookup = vi.spyOn(resolver, 'lookup');
    try {
      const developer = await server.account({ notifyUrl: `${standInReceiver('shop')}/notify` });
      const payment = await reconciledPayment(server, developer);
      const n = await onlyNotification(developer.api_key, payment.paymentId);
      expect(n.attempt_log[0]).toMatchObject({
        outcome: 'failed',
        http_status: null,
        error: 'refused: shop.quipu.invalid is under .invalid, which never resolves (RFC 6761): nothing is looked up or sent',
      });
      expect(lookup.mock.calls.filter(([hostname]) => String(hostname).endsWith('.invalid'))).toEqual([]);
    } finally {
      lookup.mockRestore();
    }
  });

  it.each(['demo.quipu.invalid', 'a.b.INVALID.', 'invalid'])('names %s as never resolving, and no other name', (host) => {
    expect(neverResolvesReason(host)).toContain('never resolves');
    for (const other of ['invalid.example', 'shop.test', 'localhost', '127.0.0.1', 'notinvalid']) expect(neverResolvesReason(other)).toBeUndefined();
  });

  it('lets a developer account give one where the operator allows it', async () => {
    const installation = await startTestServer({ NOTIFY_URL_ALLOW_LINK_LOCAL: 'true' });
    try {
      const developer = await installation.account();
      const res = await client(installation.baseUrl, developer.api_key).post('/v3/payments', {
        amount: 1000,
        currency: 'CLP',
        subject: 'x',
        notify_url: METADATA,
      });
      expect(res.status).toBe(200);
      const production = await installation.account({ developer: false });
      const refused = await client(installation.baseUrl, production.api_key).post('/v3/payments', {
        amount: 1000,
        currency: 'CLP',
        subject: 'x',
        notify_url: METADATA,
      });
      expect(refused.body.errors).toEqual([
        { field: 'notify_url', message: expect.stringContaining('is a link-local address; only public internet addresses') },
      ]);
    } finally {
      await installation.close();
    }
  });
});

describe('a production installation (SANDBOX=false)', () => {
  it('refuses private targets for developer-mode accounts too, at delivery', async () => {
    const installation = await startTestServer({ SANDBOX: 'false' });
    const productionWorker = testWorker(installation);
    try {
      const opened = await installation.account({ notifyUrl: 'https://shop.example/notify' });
      const developer = await withStoredNotifyUrl(installation, opened, receiver.url);
      expect(developer.merchant.developer).toBe(true);
      const payment = await reconciledPayment(installation, developer);
      const n = await onlyNotification(developer.api_key, payment.paymentId, installation);
      expect(n.attempt_log[0]).toMatchObject({
        outcome: 'failed',
        http_status: null,
        error: expect.stringMatching(/^refused: 127\.0\.0\.1 is a loopback address; only public internet addresses may be notified/),
      });
      expect(receiver.requests.some((r) => r.body.includes(payment.paymentId))).toBe(false);
    } finally {
      await productionWorker.stop();
      await installation.close();
    }
  });

  it("refuses a developer account's private notify_url when it is given: payments, the account's default, receivers", async () => {
    const installation = await startTestServer({ SANDBOX: 'false' });
    try {
      const integrator = await installation.account({ features: { integrator: true, confirm: false, refunds: false, contractUrl: false, psp: false } });
      expect(integrator.merchant.developer).toBe(true);
      const api = client(installation.baseUrl, integrator.api_key);
      const before = await countRows(installation.ctx.db, 'payments');
      const payment = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Private', notify_url: 'http://127.0.0.1:9/notify' });
      expect(payment.status).toBe(400);
      expect(payment.body.errors).toEqual([
        { field: 'notify_url', message: expect.stringContaining('is a loopback address; only public internet addresses may be notified') },
      ]);
      expect(await countRows(installation.ctx.db, 'payments')).toBe(before);

      await expect(updateMerchant(installation.ctx, integrator.receiver_id, { notifyUrl: 'http://10.0.0.1/notify' })).rejects.toMatchObject({
        fields: [{ field: 'notify_url' }],
      });

      const accounts = await countRows(installation.ctx.db, 'merchants');
      const receiver = await api.post('/v3/receivers', { ...validReceiver, notify_url: 'http://192.168.1.10/notify' });
      expect(receiver.status).toBe(400);
      expect(receiver.body.errors).toEqual([{ field: 'notify_url', message: expect.stringContaining('a private address') }]);
      expect(await countRows(installation.ctx.db, 'merchants')).toBe(accounts);
      // The same developer account on a sandbox installation may: localhost receivers are the point.
      expect(
        (
          await client(server.baseUrl, (await server.account()).api_key).post('/v3/payments', {
            amount: 1000,
            currency: 'CLP',
            subject: 'Local',
            notify_url: 'http://127.0.0.1:9/notify',
          })
        ).status,
      ).toBe(200);
    } finally {
      await installation.close();
    }
  });

  it('opens no demo account on first start', async () => {
    const database = await createTestDatabase();
    const port = await freePort();
    const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, PORT: String(port), LOG_LEVEL: 'info', ...PRODUCTION_SETTINGS, RUN_WORKER: 'false' };
    const serve = startServerProcess(env);
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`);
      await serve.waitFor('quipu is listening');
      expect(serve.output()).not.toContain('demo account');
      const runtime = await startRuntime(loadConfig(env), createLogger('silent', 2));
      try {
        expect(await countRows(runtime.ctx.db, 'merchants')).toBe(0);
      } finally {
        await runtime.close();
      }
    } finally {
      await serve.stop('SIGTERM');
      await database.drop();
    }
  }, 60_000);
});
