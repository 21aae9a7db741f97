// A smoke of every API against a real server, a request or a short cycle each: v3 and its signed
// notification, v2 as the official clients sign it, automatic payments, operation descriptors and
// OAuth tokens. With the payer's cycle in a browser (test/e2e/payer-no-js.test.ts) it is
// `npm run test:quick`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { signedBy, startReceiver } from '../helpers/notification-receiver.js';
import { clientCredentialsToken } from '../helpers/oauth.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { issueOperation, runThroughPages } from '../helpers/operations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';
import { v2Client } from '../helpers/v2-clients.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('smoke', () => {
  it('creates and reads a payment', async () => {
    const account = await server.account();
    const api = client(server.baseUrl, account.api_key);
    const created = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Test' });
    expect(created.status).toBe(200);
    assertProviderSchema('payment-post-payment-2', created.body);
    const got = await api.get(`/v3/payments/${created.body.payment_id}`);
    expect(got.status).toBe(200);
    assertProviderSchema('payment-get-payment', got.body);
    expect(got.body.amount).toBe(1000);
  });

  it("keeps the API's answers out of every cache and typed as JSON, errors included; public documents keep their own caching", async () => {
    const account = await server.account();
    const api = client(server.baseUrl, account.api_key);
    const answers = [
      await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Test' }),
      await api.get('/v3/payments/zzzzzzzzzzzz'),
      await client(server.baseUrl, 'nope').get('/v3/banks'),
    ];
    for (const answer of answers) {
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const discovery = await fetch(`${server.baseUrl}/.well-known/openid-configuration`);
    expect(discovery.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it("notifies a paid payment to its notify_url, signed with the account's secret", async () => {
    const account = await server.account();
    const receiver = await startReceiver();
    const worker = testWorker(server);
    try {
      const paid = await reconciledPayment(server, account, { notify_url: receiver.url });
      await receiver.waitFor((requests) => requests.length === 1);
      expect(signedBy(account.secret, receiver.requests[0]!)).toBe(true);
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ payment_id: paid.paymentId, receiver_id: account.receiver_id, amount: '1000.0000' });
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('v2: creates and reads a payment signed as the official v2 clients sign', async () => {
    const account = await server.account();
    const v2 = v2Client('php', account, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });
    const created = await v2.request('POST', '/payments', { form: { subject: 'Smoke', currency: 'CLP', amount: 1000 } });
    expect(created.status).toBe(200);
    const read = await v2.request('GET', `/payments/${created.body.payment_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ payment_id: created.body.payment_id, status: 'pending', subject: 'Smoke' });
  });

  it('automatic payments: a subscription signed at DemoBank is ENABLED and takes a charge intent', async () => {
    const account = await server.account();
    const api = client(server.baseUrl, account.api_key);
    const subscriptionId = await createSubscriptionOver(api);
    await signAtDemoBank(server.ctx, subscriptionId);
    expect((await api.get(`/v1/automatic-payment/subscription/${subscriptionId}`)).body.status).toBe('ENABLED');
    const charged = await api.post('/v1/automatic-payment/charge-intent', newCharge(subscriptionId));
    expect(charged.status).toBe(200);
    expect((await api.get(`/v3/payments/${charged.body.payment_id}`)).status).toBe(200);
  });

  it('descriptors: an operation issued, run at DemoBank through its pages, reads OK', async () => {
    const account = await server.account();
    const operation = await issueOperation(server.baseUrl, account.api_key);
    expect((await runThroughPages(server.baseUrl, operation.id)).html).toContain('data-result="OK"');
    const result = await client(server.baseUrl, account.api_key).get(`/quipu/v1/operations/${operation.id}`);
    expect(result.body).toMatchObject({ operationId: operation.id, result: 'OK' });
  });

  it('OAuth: a client-credentials token is a bearer credential on the API', async () => {
    const account = await server.account();
    const token = await clientCredentialsToken(server, account);
    const banks = await fetch(`${server.baseUrl}/v3/banks`, { headers: { authorization: `Bearer ${token}` } });
    expect(banks.status).toBe(200);
    expect((await fetch(`${server.baseUrl}/v3/banks`, { headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);
  });
});
