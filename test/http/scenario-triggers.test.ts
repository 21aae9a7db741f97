// DemoBank's scenarios run with one request (POST /sandbox/scenarios/{id}/run), on a real server
// whose delivery worker sends what they cause to a real receiver, the account's notify_url: each
// scenario ends as its row of the scenario table says, read back through the public API, with its
// callback delivered; charge-refused answers the charge's 400 and writes no charge. Unknown ids are
// 404, production accounts are refused, and another account cannot reach what a run created.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNNABLE_SCENARIOS } from '../../src/app/run-scenario.js';
import { SCENARIOS } from '../../src/bank/demo-bank-scenarios.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { testWorker } from '../helpers/delivery.js';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { type ReceivedRequest, type Receiver, signedBy, startReceiver } from '../helpers/notification-receiver.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let worker: DeliveryWorker;
let receiver: Receiver;
let account: TestAccount;
let other: TestAccount;
let production: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  worker = testWorker(server);
  receiver = await startReceiver();
  account = await server.account({ notifyUrl: receiver.url });
  other = await server.account({ notifyUrl: receiver.url });
  production = await server.account({ developer: false });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await server?.close();
});

const api = (who: TestAccount = account) => client(server.baseUrl, who.api_key);
const run = (id: string, who: TestAccount = account) => api(who).post(`/sandbox/scenarios/${id}/run`);
const bodyOf = (request: ReceivedRequest) => JSON.parse(request.body) as Record<string, unknown>;

/** The first callback whose JSON body has these fields, once the receiver has it. */
async function callbackWith(fields: Record<string, unknown>): Promise<ReceivedRequest> {
  const matches = (r: ReceivedRequest) => r.body.startsWith('{') && Object.entries(fields).every(([k, v]) => bodyOf(r)[k] === v);
  await receiver.waitFor((requests) => requests.some(matches));
  return receiver.requests.find(matches)!;
}

type Answer = JsonResponse<{ scenario: string; outcome: string; payment?: { payment_id: string }; subscription?: { subscription_id: string } }>;

interface Expected {
  outcome: string;
  /** status/status_detail, as GET /v3/payments/{id} reads it. */
  payment?: string;
  /** As GET /v1/automatic-payment/subscription/{id} reads it. */
  subscription?: string;
  /** Fields of the callback the receiver gets. */
  callback?: (answer: Answer['body']) => Record<string, unknown>;
}

const paymentNotified = (answer: Answer['body']) => ({ payment_id: answer.payment!.payment_id });
const signing = (status: string) => (answer: Answer['body']) => ({ subscription_id: answer.subscription!.subscription_id, status });
const chargeError = (answer: Answer['body']) => ({ subscription_id: answer.subscription!.subscription_id, transaction_id: `Scenario-${answer.scenario}` });

/** What each row of the scenario table ends in; charge-refused, a 400, has its own test. */
const EXPECTED: Record<string, Expected> = {
  'transfer-pays': { outcome: 'done', payment: 'done/normal', callback: paymentNotified },
  'transfer-fails': { outcome: 'pending', payment: 'pending/pending' },
  'transfer-uncertain': { outcome: 'verifying', payment: 'verifying/pending' },
  'mandate-enabled': { outcome: 'ENABLED', subscription: 'ENABLED', callback: signing('enabled') },
  'mandate-rejected': { outcome: 'DISABLED', subscription: 'DISABLED', callback: signing('disabled') },
  'mandate-pending-approval': { outcome: 'SIGNED', subscription: 'SIGNED' },
  'mandate-revoked': { outcome: 'DISABLED', subscription: 'DISABLED', callback: signing('disabled') },
  'charge-settles': { outcome: 'done', payment: 'done/normal', subscription: 'ENABLED', callback: paymentNotified },
  'charge-insufficient-funds': { outcome: 'pending', payment: 'pending/pending', subscription: 'ENABLED', callback: chargeError },
  'charge-revoked-mandate': { outcome: 'pending', payment: 'pending/pending', subscription: 'DISABLED', callback: chargeError },
};

describe('the scenarios that can be run', () => {
  it('are exactly the rows of the scenario table, and each row has its expected end here', () => {
    const ids = SCENARIOS.map((s) => s.id).sort();
    expect([...RUNNABLE_SCENARIOS].sort()).toEqual(ids);
    expect([...Object.keys(EXPECTED), 'charge-refused'].sort()).toEqual(ids);
  });
});

describe('POST /sandbox/scenarios/{id}/run', () => {
  it.each(Object.keys(EXPECTED))('%s ends as its row says, its callback delivered, signed', async (id) => {
    const expected = EXPECTED[id]!;
    const answer: Answer = await run(id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ scenario: id, outcome: expected.outcome });
    if (expected.payment) {
      const paymentId = answer.body.payment!.payment_id;
      const read = (await api().get(`/v3/payments/${paymentId}`)).body;
      expect(`${read.status}/${read.status_detail}`).toBe(expected.payment);
      expect(read.subject).toBe(`Scenario ${id}`);
      expect(answer.body.payment).toEqual({ payment_id: paymentId, status: read.status, status_detail: read.status_detail });
    } else {
      expect(answer.body.payment).toBeUndefined();
    }
    if (expected.subscription) {
      const subscriptionId = answer.body.subscription!.subscription_id;
      const read = (await api().get(`/v1/automatic-payment/subscription/${subscriptionId}`)).body;
      expect(read).toMatchObject({ status: expected.subscription, developer: true });
      expect(answer.body.subscription).toEqual(read);
    } else {
      expect(answer.body.subscription).toBeUndefined();
    }
    if (expected.callback) {
      const callback = await callbackWith(expected.callback(answer.body));
      expect(signedBy(account.secret, callback)).toBe(true);
      const reasons: Record<string, string> = {
        'charge-revoked-mandate': 'Mandato revocado por el titular',
        'charge-insufficient-funds': 'Fondos insuficientes',
      };
      if (reasons[id]) expect(bodyOf(callback).error_message).toContain(reasons[id]);
    }
  });

  it('charge-refused: the charge over max_amount is the 400 naming amount, and no charge is written', async () => {
    const charges = async () => (await server.ctx.db.selectFrom('debits').select('payment_id').where('receiver_id', '=', account.receiver_id).execute()).length;
    const payments = async () =>
      (await server.ctx.db.selectFrom('payments').select('payment_id').where('receiver_id', '=', account.receiver_id).execute()).length;
    const before = [await charges(), await payments()];
    const refused = await run('charge-refused');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      status: 400,
      message: 'Invalid request',
      errors: [{ field: 'amount', message: "must not exceed the subscription's max_amount" }],
    });
    expect([await charges(), await payments()]).toEqual(before);
  });

  it('is 404 for an unknown scenario, writing nothing', async () => {
    const before = await server.ctx.db.selectFrom('subscriptions').select('subscription_id').execute();
    for (const id of ['charge-explodes', 'constructor', '__proto__']) {
      const res = await run(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 404, message: 'Scenario not found' });
    }
    expect(await server.ctx.db.selectFrom('subscriptions').select('subscription_id').execute()).toHaveLength(before.length);
  });

  it('refuses a production account (403) and no credentials (401), writing nothing', async () => {
    const refused = await run('transfer-pays', production);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('The sandbox is only for developer-mode accounts');
    expect((await call(server.baseUrl, 'POST', '/sandbox/scenarios/transfer-pays/run')).status).toBe(401);
    expect(await server.ctx.db.selectFrom('payments').select('payment_id').where('receiver_id', '=', production.receiver_id).execute()).toEqual([]);
  });

  it("creates the objects in the asking account only: another account's credentials get 404", async () => {
    const answer: Answer = await run('charge-settles');
    const paymentId = answer.body.payment!.payment_id;
    const subscriptionId = answer.body.subscription!.subscription_id;
    expect((await api().get(`/v3/payments/${paymentId}`)).body.receiver_id).toBe(account.receiver_id);
    expect((await api(other).get(`/v3/payments/${paymentId}`)).status).toBe(404);
    expect((await api(other).get(`/v1/automatic-payment/subscription/${subscriptionId}`)).status).toBe(404);
    expect((await api(other).post(`/sandbox/demobank/subscriptions/${subscriptionId}/revoke`)).status).toBe(404);
  });
});

describe('with NOTIFY_URL_ACCOUNT_HOSTS on in a sandbox', () => {
  it('a scenario with callbacks, for an account without notify_url, is refused before it writes, saying what to set; with one it runs', async () => {
    const strict = await startTestServer({ NOTIFY_URL_ACCOUNT_HOSTS: 'true' });
    try {
      const bare = await strict.account();
      const subscriptions = async () =>
        (await strict.ctx.db.selectFrom('subscriptions').select('subscription_id').where('receiver_id', '=', bare.receiver_id).execute()).length;
      for (const id of ['mandate-enabled', 'charge-settles']) {
        const refused = await client(strict.baseUrl, bare.api_key).post(`/sandbox/scenarios/${id}/run`);
        expect(refused.status).toBe(400);
        expect(refused.body.message).toContain('the account has no notify_url');
        expect(refused.body.message).toContain('https://scenarios.quipu.invalid, where they would go instead, names a host this account has not registered');
        expect(refused.body.message).toContain("Set the account's notify_url in the dashboard's Settings");
      }
      expect(await subscriptions()).toBe(0);
      expect((await client(strict.baseUrl, bare.api_key).post('/sandbox/scenarios/transfer-pays/run')).body).toMatchObject({ outcome: 'done' });

      const registered = await strict.account({ notifyUrl: receiver.url });
      const answer: Answer = await client(strict.baseUrl, registered.api_key).post('/sandbox/scenarios/mandate-enabled/run');
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.outcome).toBe('ENABLED');
    } finally {
      await strict.close();
    }
  });
});

describe('with SANDBOX off', () => {
  it('there is no scenario to run', async () => {
    const off = await startTestServer({ SANDBOX: 'false' });
    try {
      const developer = await off.account();
      expect((await client(off.baseUrl, developer.api_key).post('/sandbox/scenarios/transfer-pays/run')).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
