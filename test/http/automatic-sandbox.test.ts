// The sandbox's DemoBank decisions about automatic payments and its scenario table, over HTTP on a
// real server, with the delivery worker sending what they cause to a real receiver: settling a
// charge reconciles and notifies it, failing one tells error_response_url, approving, rejecting or
// revoking a mandate sends the signing notification. Only the account's own charges and
// subscriptions, only developer-mode accounts, only where SANDBOX is on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../src/bank/demo-bank-scenarios.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { testWorker } from '../helpers/delivery.js';
import { call, client } from '../helpers/http.js';
import { type ReceivedRequest, type Receiver, signedBy, startReceiver } from '../helpers/notification-receiver.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

const PENDING_APPROVAL_RUT = '33.333.333-3';

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
  account = await server.account();
  other = await server.account();
  production = await server.account({ developer: false });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await server?.close();
});

const api = (who: TestAccount = account) => client(server.baseUrl, who.api_key);
const bodyOf = (request: ReceivedRequest) => JSON.parse(request.body) as Record<string, unknown>;

/** A subscription of `who` notifying the receiver, signed at DemoBank by `rut`. */
async function signedSubscription(rut = '11.111.111-1', who: TestAccount = account): Promise<string> {
  const id = await createSubscriptionOver(api(who), { notify_url: receiver.url });
  await signAtDemoBank(server.ctx, id, rut);
  return id;
}

async function chargeOf(subscriptionId: string, who: TestAccount = account): Promise<string> {
  const created = await api(who).post(
    '/v1/automatic-payment/charge-intent',
    newCharge(subscriptionId, {
      notify_url: receiver.url,
      notify_api_version: '3.0',
      error_response_url: receiver.url,
      transaction_id: `T-${subscriptionId.slice(0, 8)}`,
    }),
  );
  expect(created.status).toBe(200);
  return created.body.payment_id as string;
}

/** The requests the receiver got whose JSON body has these fields. */
async function receivedWith(fields: Record<string, unknown>, count = 1): Promise<ReceivedRequest[]> {
  const matching = (requests: ReceivedRequest[]) =>
    requests.filter((r) => r.body.startsWith('{') && Object.entries(fields).every(([k, v]) => bodyOf(r)[k] === v));
  await receiver.waitFor((requests) => matching(requests).length >= count);
  return matching(receiver.requests);
}

describe('POST /sandbox/demobank/charges/{payment_id}/settle|fail', () => {
  it('settle: DemoBank takes the due debit and settles it now; the payment is done and its 3.0 notification delivered, signed', async () => {
    const subscriptionId = await signedSubscription();
    const paymentId = await chargeOf(subscriptionId);
    expect((await api().get(`/v3/payments/${paymentId}`)).body.status).toBe('pending');
    const settled = await api().post(`/sandbox/demobank/charges/${paymentId}/settle`);
    expect(settled.status).toBe(200);
    expect(settled.body).toEqual({ payment_id: paymentId, status: 'done', status_detail: 'normal' });
    expect((await api().get(`/v3/payments/${paymentId}`)).body).toMatchObject({ status: 'done', status_detail: 'normal' });
    const [notification] = await receivedWith({ payment_id: paymentId });
    expect(bodyOf(notification!)).toMatchObject({
      payment_id: paymentId,
      amount: '10000.0000',
      bank_id: 'Bawdf',
      transaction_id: `T-${subscriptionId.slice(0, 8)}`,
    });
    expect(signedBy(account.secret, notification!)).toBe(true);

    const again = await api().post(`/sandbox/demobank/charges/${paymentId}/settle`);
    expect(again.status).toBe(400);
    expect(again.body.message).toContain('settled');
  });

  it('fail: the payment stays pending, never done, and error_response_url gets the signed error', async () => {
    const subscriptionId = await signedSubscription('12.345.678-5');
    const paymentId = await chargeOf(subscriptionId);
    const failed = await api().post(`/sandbox/demobank/charges/${paymentId}/fail`);
    expect(failed.status).toBe(200);
    expect(failed.body).toEqual({ payment_id: paymentId, status: 'pending', status_detail: 'pending' });
    const [error] = await receivedWith({ subscription_id: subscriptionId, transaction_id: `T-${subscriptionId.slice(0, 8)}` });
    expect(Object.keys(bodyOf(error!)).sort()).toEqual(['error_message', 'subscription_id', 'transaction_id']);
    expect(bodyOf(error!).error_message).toContain('create a new charge intent');
    expect(signedBy(account.secret, error!)).toBe(true);
    expect((await api().get(`/v3/payments/${paymentId}`)).body.status).toBe('pending');
    expect((await api().post(`/sandbox/demobank/charges/${paymentId}/settle`)).status).toBe(400);
    expect((await api().get(`/v3/payments/${paymentId}`)).body.status).toBe('pending');
  });

  it("is 404 for an unknown payment, a payment that is not a charge and another account's charge", async () => {
    const paymentId = await chargeOf(await signedSubscription());
    const plain = await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Not a charge' });
    for (const path of ['/sandbox/demobank/charges/zzzzzzzzzzzz/settle', `/sandbox/demobank/charges/${plain.body.payment_id}/settle`]) {
      const res = await api().post(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 404, message: 'Charge not found' });
    }
    expect((await api(other).post(`/sandbox/demobank/charges/${paymentId}/settle`)).status).toBe(404);
    expect((await api().get(`/v3/payments/${paymentId}`)).body.status).toBe('pending');
    const unknownDecision = await api().post(`/sandbox/demobank/charges/${paymentId}/refund`);
    expect(unknownDecision.status).toBe(400);
    expect(unknownDecision.body.errors).toEqual([expect.objectContaining({ field: 'decision' })]);
  });
});

describe('POST /sandbox/demobank/subscriptions/{id}/approve|reject|revoke', () => {
  it('approves a mandate waiting for the bank: ENABLED and the signed "enabled" notification', async () => {
    const id = await signedSubscription(PENDING_APPROVAL_RUT);
    expect((await api().get(`/v1/automatic-payment/subscription/${id}`)).body.status).toBe('SIGNED');
    const approved = await api().post(`/sandbox/demobank/subscriptions/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ subscription_id: id, status: 'ENABLED', developer: true, customer_bank_code: 'Bawdf', service_reference: '' });
    const [notification] = await receivedWith({ subscription_id: id });
    expect(bodyOf(notification!)).toEqual({ subscription_id: id, status: 'enabled' });
    expect(signedBy(account.secret, notification!)).toBe(true);
    // Approved once: there is nothing left to approve or reject.
    const again = await api().post(`/sandbox/demobank/subscriptions/${id}/reject`);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('The mandate is not waiting for the bank');
    expect((await api().get(`/v1/automatic-payment/subscription/${id}`)).body.status).toBe('ENABLED');
  });

  it('rejects a mandate waiting for the bank: DISABLED and "disabled"; a charge on it is refused', async () => {
    const id = await signedSubscription(PENDING_APPROVAL_RUT);
    const rejected = await api().post(`/sandbox/demobank/subscriptions/${id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('DISABLED');
    const [notification] = await receivedWith({ subscription_id: id });
    expect(bodyOf(notification!)).toEqual({ subscription_id: id, status: 'disabled' });
    const charge = await api().post('/v1/automatic-payment/charge-intent', newCharge(id));
    expect(charge.status).toBe(400);
    expect(charge.body.errors).toEqual([expect.objectContaining({ field: 'subscription_id' })]);
  });

  it('revokes an enabled mandate as its payer would: DISABLED, "disabled", once', async () => {
    const id = await signedSubscription();
    const revoked = await api().post(`/sandbox/demobank/subscriptions/${id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('DISABLED');
    const [notification] = await receivedWith({ subscription_id: id, status: 'disabled' });
    expect(bodyOf(notification!)).toEqual({ subscription_id: id, status: 'disabled' });
    const twice = await api().post(`/sandbox/demobank/subscriptions/${id}/revoke`);
    expect(twice.status).toBe(400);
    expect(twice.body.message).toBe('The mandate is not in force: there is nothing to revoke');
    // Nor can a revoked mandate be approved.
    expect((await api().post(`/sandbox/demobank/subscriptions/${id}/approve`)).status).toBe(400);
    const history = await server.ctx.db
      .selectFrom('subscription_changes')
      .select(['event', 'origin'])
      .where('subscription_id', '=', id)
      .orderBy('changed_at')
      .execute();
    expect(history.at(-1)).toEqual({ event: 'revoked-by-payer', origin: 'payer' });
    expect(
      (await server.ctx.db.selectFrom('messages').select('message_id').where('kind', '=', 'subscription.signing').where('subject_id', '=', id).execute())
        .length,
    ).toBe(2);
  });

  it("is 404 for an unknown subscription and another account's; 400 for one never signed at DemoBank", async () => {
    const id = await signedSubscription();
    for (const path of ['/sandbox/demobank/subscriptions/6b0e1c1e-0000-4000-8000-000000000000/revoke', '/sandbox/demobank/subscriptions/not-a-uuid/approve']) {
      const res = await api().post(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 404, message: 'Subscription not found' });
    }
    expect((await api(other).post(`/sandbox/demobank/subscriptions/${id}/revoke`)).status).toBe(404);
    expect((await api().get(`/v1/automatic-payment/subscription/${id}`)).body.status).toBe('ENABLED');
    const unsigned = await createSubscriptionOver(api());
    const refused = await api().post(`/sandbox/demobank/subscriptions/${unsigned}/revoke`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('The subscription has no mandate signed at DemoBank');
  });
});

describe('the sandbox and production accounts', () => {
  it('refuses a production account with 403, whatever the id', async () => {
    const own = await createSubscriptionOver(api(production));
    for (const path of [`/sandbox/demobank/subscriptions/${own}/revoke`, '/sandbox/demobank/charges/zzzzzzzzzzzz/settle']) {
      const res = await api(production).post(path);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('The sandbox is only for developer-mode accounts');
    }
    expect((await call(server.baseUrl, 'POST', `/sandbox/demobank/subscriptions/${own}/revoke`)).status).toBe(401);
  });
});

describe('GET /sandbox/scenarios', () => {
  it('serves the scenario table as JSON without credentials', async () => {
    const res = await call(server.baseUrl, 'GET', '/sandbox/scenarios');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ scenarios: SCENARIOS });
    const ids = res.body.scenarios.map((s: { id: string }) => s.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'mandate-enabled',
        'mandate-rejected',
        'mandate-pending-approval',
        'mandate-revoked',
        'charge-settles',
        'charge-insufficient-funds',
      ]),
    );
    expect(JSON.stringify(res.body)).toContain(PENDING_APPROVAL_RUT);
  });

  it('is in the OpenAPI document, with the decisions', async () => {
    const paths = (await call(server.baseUrl, 'GET', '/openapi.json')).body.paths;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(['/sandbox/scenarios', '/sandbox/demobank/charges/{id}/{decision}', '/sandbox/demobank/subscriptions/{id}/{decision}']),
    );
    expect(paths['/sandbox/scenarios'].get.security).toEqual([]);
  });
});

describe('with SANDBOX off', () => {
  it('none of it exists: the scenarios, the decisions and DemoBank portal are 404', async () => {
    const off = await startTestServer({ SANDBOX: 'false' });
    try {
      const developer = await off.account();
      expect((await call(off.baseUrl, 'GET', '/sandbox/scenarios')).status).toBe(404);
      expect((await client(off.baseUrl, developer.api_key).post('/sandbox/demobank/charges/zzzzzzzzzzzz/settle')).status).toBe(404);
      expect((await client(off.baseUrl, developer.api_key).post('/sandbox/demobank/subscriptions/x/revoke')).status).toBe(404);
      expect((await call(off.baseUrl, 'GET', '/demobank/portal')).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
