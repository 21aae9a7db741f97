// What /docs and the charge intent say is true: on a fresh `quipu serve` (what `npm start` runs, an
// empty database, the demo account it opens), the charge-intent example of "Try it out" is accepted
// exactly as the OpenAPI document gives it, since the demo account has the ENABLED subscription it
// names; the document's header names what it holds; and a charge intent's `custom` sent empty is a
// value named in Quipu-Warnings ("is empty"), never "is required" (never stricter than the
// provider, docs/validation-rules.md), while a custom left out is required.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SUBSCRIPTION_ID } from '../../src/app/demo-account.js';
import { CHARGE_INTENT_EXAMPLE } from '../../src/http/request-examples.js';
import { call, client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { warningsOf } from '../helpers/warnings.js';

const CHARGE = '/v1/automatic-payment/charge-intent';
const DEMO_API_KEY = '5d0c9a7e-1f2b-4c3d-9e8f-7a6b5c4d3e2f';

describe('a fresh quipu serve', { timeout: 120_000 }, () => {
  const processes = withServerProcesses();
  let baseUrl: string;

  beforeAll(async () => {
    const server = await serveOnFreePort(
      { DATABASE_URL: processes.database.url, DATA_DIR: processes.database.dataDir, LOG_LEVEL: 'info', DEMO_API_KEY },
      processes.started,
    );
    baseUrl = server.baseUrl;
    // The demo account is opened once the server listens.
    await server.waitFor('quipu is listening');
  }, 60_000);

  it('accepts the charge-intent example of /docs as it stands, with the demo account', async () => {
    const doc = (await call(baseUrl, 'GET', '/openapi.json')).body;
    const example = doc.paths[CHARGE].post.requestBody.content['application/json'].example;
    expect(example).toEqual(CHARGE_INTENT_EXAMPLE);
    expect(example.subscription_id).toBe(DEMO_SUBSCRIPTION_ID);
    const api = client(baseUrl, DEMO_API_KEY);
    const status = await eventually(
      () => api.get(`/v1/automatic-payment/subscription/${DEMO_SUBSCRIPTION_ID}`),
      (res) => res.status === 200,
    );
    expect(status.body).toMatchObject({ subscription_id: DEMO_SUBSCRIPTION_ID, status: 'ENABLED', developer: true });
    const charged = await api.post(CHARGE, example);
    expect(charged.status, JSON.stringify(charged.body)).toBe(200);
    expect((await api.get(`/v3/payments/${charged.body.payment_id}`)).body).toMatchObject({ subject: example.subject, amount: example.amount });
  });

  it("heads /docs with what the reference holds, not the v3 API's name alone", async () => {
    const { info } = (await call(baseUrl, 'GET', '/openapi.json')).body;
    for (const part of ['v3', 'v2', 'automatic payments', 'OAuth 2.0', 'events', 'sandbox', 'operator API', 'Try it out', 'demo account'])
      expect(info.description).toContain(part);
    const page = await fetch(`${baseUrl}/docs/json`);
    expect(((await page.json()) as { info: { description: string } }).info.description).toBe(info.description);
  });
});

describe("a charge intent's custom", { timeout: 60_000 }, () => {
  let server: TestServer;
  let account: TestAccount;
  let subscriptionId: string;
  beforeAll(async () => {
    server = await startTestServer();
    account = await server.account();
    subscriptionId = await createSubscriptionOver(client(server.baseUrl, account.api_key));
    await signAtDemoBank(server.ctx, subscriptionId);
  });
  afterAll(async () => server?.close());

  it('sent empty is accepted and named "is empty"; left out, it is required', async () => {
    const api = client(server.baseUrl, account.api_key);
    const empty = await api.post(CHARGE, newCharge(subscriptionId, { custom: '', transaction_id: 'EMPTY-1' }));
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
    expect(warningsOf(empty)).toEqual({ custom: 'is empty' });
    expect((await api.get(`/v3/payments/${empty.body.payment_id}`)).body.custom).toBe('');
    const { custom: _left, ...without } = newCharge(subscriptionId, { transaction_id: 'EMPTY-2' });
    const missing = await api.post(CHARGE, without);
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ field: 'custom', message: 'is required' }]);
  });
});
