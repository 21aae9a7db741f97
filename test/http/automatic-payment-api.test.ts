// The automatic payment API's edges, over HTTP: every field rule of both POSTs broken once is a 400
// naming that field (several at once when several are broken) and writes nothing; unknown and
// other accounts' subscriptions are 404 under both status paths; a charge on a subscription that
// is not ENABLED says why; the answers hold exactly the documented fields, for API keys and bearer
// tokens alike; Idempotency-Key replays both POSTs; the operations are in /openapi.json.
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COORDINATES, INSUFFICIENT_FUNDS_RUT, PENDING_APPROVAL_RUT } from '../../src/bank/demo-bank-scenarios.js';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { clientCredentialsToken } from '../helpers/oauth.js';
import { countRows } from '../helpers/payments.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, NEW_SUBSCRIPTION, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

const SUBSCRIPTION_PATH = '/v1/automatic-payment/subscription';
const CHARGE_PATH = '/v1/automatic-payment/charge-intent';

let production: TestAccount;
let api: ReturnType<typeof client>;
/** Subscriptions of `account`, one in each state that matters to a charge. */
const subscriptions = { enabled: '', signed: '', created: '', rejected: '', otherAccounts: '' };

const setup = useTestServer();
beforeAll(async () => {
  production = await setup.server.account({ developer: false });
  api = client(setup.server.baseUrl, setup.account.api_key);
  for (const state of ['enabled', 'signed', 'created', 'rejected'] as const) subscriptions[state] = await createSubscriptionOver(api);
  await signAtDemoBank(setup.server.ctx, subscriptions.enabled);
  await signAtDemoBank(setup.server.ctx, subscriptions.signed, PENDING_APPROVAL_RUT);
  await signAtDemoBank(setup.server.ctx, subscriptions.rejected, INSUFFICIENT_FUNDS_RUT, DEMO_COORDINATES.fail);
  const other = await setup.server.account();
  subscriptions.otherAccounts = await createSubscriptionOver(client(setup.server.baseUrl, other.api_key));
  await signAtDemoBank(setup.server.ctx, subscriptions.otherAccounts);
});

const TABLES = ['subscriptions', 'payments', 'debits', 'messages'] as const;
const rowCounts = async () => Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await countRows(setup.server.ctx.db, t)] as const)));
const fieldsOf = (res: JsonResponse) => (res.body.errors as { field: string }[]).map((e) => e.field).sort();

/** Posts `body` and checks the answer is a 400 naming exactly `fields`, and that nothing was written. */
async function refused(path: string, body: Record<string, unknown>, fields: string[], as = api): Promise<JsonResponse> {
  const before = await rowCounts();
  const res = await as.post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ status: 400, message: expect.any(String) });
  expect(fieldsOf(res)).toEqual([...fields].sort());
  expect(await rowCounts()).toEqual(before);
  return res;
}

const without = (body: Record<string, unknown>, field: string) => Object.fromEntries(Object.entries(body).filter(([name]) => name !== field));
const long = (n: number) => 'x'.repeat(n);
const longUrl = (n: number) => `https://merchant.example/${'p'.repeat(n - 'https://merchant.example/'.length)}`;
const longEmail = (n: number) => `${'a'.repeat(n - '@example.com'.length)}@example.com`;

describe('POST /v1/automatic-payment/subscription with a broken rule', () => {
  const required = ['name', 'email', 'max_amount', 'currency', 'notify_url', 'return_url', 'cancel_url'];
  it.each(required)('without %s: a 400 naming it', async (field) => {
    await refused(SUBSCRIPTION_PATH, without(NEW_SUBSCRIPTION, field), [field]);
  });

  it.each([
    ['name', 42],
    ['name', long(256)],
    ['email', 'not an email'],
    ['email', longEmail(256)],
    ['email', false],
    ['max_amount', 0],
    ['max_amount', -100],
    ['max_amount', 100.5],
    ['max_amount', '1000'],
    ['max_amount', 'a lot'],
    ['currency', 'XYZ'],
    ['currency', 'CLPXX'],
    ['currency', 152],
    ['notify_url', 'merchant.example/notify'],
    ['notify_url', 'ftp://merchant.example/notify'],
    ['notify_url', longUrl(1025)],
    ['return_url', '/ok'],
    ['return_url', 'javascript:alert(1)'],
    ['return_url', longUrl(1025)],
    ['cancel_url', 'not a url'],
    ['cancel_url', longUrl(1025)],
    ['image_url', 'logo.png'],
    ['image_url', longUrl(1025)],
    ['service_reference', long(256)],
    ['service_reference', 12345678],
  ] as const)('%s = %j: a 400 naming it', async (field, value) => {
    await refused(SUBSCRIPTION_PATH, { ...NEW_SUBSCRIPTION, [field]: value }, [field]);
  });

  it.each([
    ['USD', 10.555],
    ['CLF', 1.00001],
    ['ARS', 0.001],
  ])('max_amount with more decimals than %s takes: a 400 naming it', async (currency, max_amount) => {
    const res = await refused(SUBSCRIPTION_PATH, { ...NEW_SUBSCRIPTION, currency, max_amount }, ['max_amount']);
    expect(res.body.errors[0].message).toMatch(/decimals/);
  });

  it('takes every limit at its edge', async () => {
    const before = await countRows(setup.server.ctx.db, 'subscriptions');
    const res = await api.post(SUBSCRIPTION_PATH, {
      ...NEW_SUBSCRIPTION,
      name: long(255),
      email: longEmail(255),
      max_amount: 0.0001,
      currency: 'CLF',
      notify_url: longUrl(1024),
      return_url: longUrl(1024),
      cancel_url: longUrl(1024),
      image_url: longUrl(1024),
      service_reference: long(255),
      description: long(1024),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await countRows(setup.server.ctx.db, 'subscriptions')).toBe(before + 1);
  });

  it('names every broken field at once', async () => {
    const res = await refused(
      SUBSCRIPTION_PATH,
      { ...without(NEW_SUBSCRIPTION, 'name'), email: 'nope', max_amount: 0, notify_url: 'nope', service_reference: long(256) },
      ['name', 'email', 'max_amount', 'notify_url', 'service_reference'],
    );
    expect(res.body.errors.find((e: { field: string }) => e.field === 'name').message).toBe('is required');
  });

  it('checks max_amount against a currency it does not know as an amount of at most four decimals', async () => {
    await refused(SUBSCRIPTION_PATH, { ...NEW_SUBSCRIPTION, currency: 'XYZ', max_amount: -1 }, ['currency', 'max_amount']);
    await refused(SUBSCRIPTION_PATH, { ...NEW_SUBSCRIPTION, currency: 'XYZ', max_amount: 1.00001 }, ['currency', 'max_amount']);
  });

  it("refuses a production account's private notify_url, naming it with the other broken fields", async () => {
    const res = await refused(
      SUBSCRIPTION_PATH,
      { ...NEW_SUBSCRIPTION, notify_url: 'http://10.0.0.7/subscription', name: long(256) },
      ['name', 'notify_url'],
      client(setup.server.baseUrl, production.api_key),
    );
    expect(res.body.errors.find((e: { field: string }) => e.field === 'notify_url').message).toMatch(/private address/);
    await refused(
      SUBSCRIPTION_PATH,
      { ...NEW_SUBSCRIPTION, notify_url: 'http://localhost:8080/subscription' },
      ['notify_url'],
      client(setup.server.baseUrl, production.api_key),
    );
    // A developer-mode account may aim it at its own machine.
    expect((await api.post(SUBSCRIPTION_PATH, { ...NEW_SUBSCRIPTION, notify_url: 'http://127.0.0.1:9/subscription' })).status).toBe(200);
  });
});

describe('POST /v1/automatic-payment/charge-intent with a broken rule', () => {
  const charge = () => newCharge(subscriptions.enabled);
  const required = ['subscription_id', 'amount', 'subject', 'body', 'error_response_url', 'custom', 'transaction_id', 'notify_url'];
  it.each(required)('without %s: a 400 naming it', async (field) => {
    await refused(CHARGE_PATH, without(charge(), field), [field]);
  });

  it.each([
    ['subscription_id', 42],
    ['subscription_id', long(256)],
    ['amount', 0],
    ['amount', 0.5],
    ['amount', -1000],
    ['amount', 100.5],
    ['amount', 50001],
    ['amount', '1000'],
    ['subject', long(256)],
    ['subject', 7],
    ['body', long(5121)],
    ['error_response_url', 'not a url'],
    ['error_response_url', 'mailto:ops@merchant.example'],
    ['error_response_url', longUrl(1025)],
    ['custom', { a: 1 }],
    ['transaction_id', long(256)],
    ['notify_url', '/notify'],
    ['notify_url', longUrl(1025)],
    ['notify_api_version', '2.0'],
    ['notify_api_version', long(256)],
  ] as const)('%s = %j: a 400 naming it', async (field, value) => {
    await refused(CHARGE_PATH, { ...charge(), [field]: value }, [field]);
  });

  it('says why an amount over max_amount is refused, and takes max_amount itself', async () => {
    const res = await refused(CHARGE_PATH, { ...charge(), amount: 50001 }, ['amount']);
    expect(res.body.errors[0].message).toMatch(/max_amount/);
    expect((await api.post(CHARGE_PATH, { ...charge(), amount: 50000, body: long(5120), subject: long(255), transaction_id: long(255) })).status).toBe(200);
  });

  it.each([
    ['unknown', () => '00000000-0000-4000-8000-000000000000', /not a subscription of this account/],
    ["another account's", () => subscriptions.otherAccounts, /not a subscription of this account/],
    ['SIGNED', () => subscriptions.signed, /SIGNED: its bank has not activated the mandate yet/],
    ['DISABLED (not signed)', () => subscriptions.created, /DISABLED: the payer has not signed/],
    ['DISABLED (rejected by the bank)', () => subscriptions.rejected, /DISABLED: the bank rejected/],
  ])('on an %s subscription: a 400 naming subscription_id whose message says why', async (_what, id, why) => {
    const res = await refused(CHARGE_PATH, newCharge(id()), ['subscription_id']);
    expect(res.body.message).toMatch(why);
    expect(res.body.errors[0].message).toMatch(why);
  });

  it('names every broken field at once, the subscription among them', async () => {
    const res = await refused(
      CHARGE_PATH,
      { ...newCharge(subscriptions.signed), amount: 60000, subject: long(256), notify_url: 'nope', notify_api_version: '9' },
      ['subscription_id', 'amount', 'subject', 'notify_url', 'notify_api_version'],
    );
    expect(res.body.message).toMatch(/SIGNED/);
  });

  it('checks the amount even when the subscription is unknown', async () => {
    await refused(CHARGE_PATH, newCharge('no-such-subscription', { amount: 0 }), ['subscription_id', 'amount']);
    await refused(CHARGE_PATH, newCharge('no-such-subscription', { amount: 1.00001 }), ['subscription_id', 'amount']);
  });

  it("refuses a production account's private notify_url and error_response_url", async () => {
    const productionApi = client(setup.server.baseUrl, production.api_key);
    const subscriptionId = await createSubscriptionOver(productionApi);
    const res = await refused(
      CHARGE_PATH,
      newCharge(subscriptionId, { notify_url: 'http://192.168.1.10/charge', error_response_url: 'http://[::1]/error' }),
      ['subscription_id', 'notify_url', 'error_response_url'],
      productionApi,
    );
    expect(res.body.errors.find((e: { field: string }) => e.field === 'notify_url').message).toMatch(/private address/);
  });
});

describe('reading a subscription', () => {
  const paths = [
    (id: string) => `${SUBSCRIPTION_PATH}/${id}`,
    (id: string) => `/v1/automatic-payment/subscription-status?subscription_id=${encodeURIComponent(id)}`,
  ];

  it.each(paths.map((p) => [p('ID'), p] as const))('%s answers exactly the documented fields', async (_shown, path) => {
    const res = await api.get(path(subscriptions.enabled));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      subscription_id: subscriptions.enabled,
      status: 'ENABLED',
      developer: true,
      customer_bank_code: 'Bawdf',
      service_reference: '',
    });
  });

  it.each(paths.map((p) => [p('ID'), p] as const))('%s is 404 for an unknown id and for another account’s', async (_shown, path) => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', subscriptions.otherAccounts]) {
      const res = await api.get(path(id));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 404, message: expect.any(String) });
    }
  });

  it('shows each state on the wire', async () => {
    const status = async (id: string) => (await api.get(`${SUBSCRIPTION_PATH}/${id}`)).body;
    expect(await status(subscriptions.signed)).toMatchObject({ status: 'SIGNED', customer_bank_code: 'Bawdf' });
    expect(await status(subscriptions.created)).toMatchObject({ status: 'DISABLED', customer_bank_code: 'no-bank' });
    expect((await status(subscriptions.rejected)).status).toBe('DISABLED');
  });

  it('says developer false and no-bank for a production account before signing, with its service_reference', async () => {
    const productionApi = client(setup.server.baseUrl, production.api_key);
    const id = await createSubscriptionOver(productionApi, { service_reference: '12345678K' });
    for (const path of paths) {
      expect((await productionApi.get(path(id))).body).toEqual({
        subscription_id: id,
        status: 'DISABLED',
        developer: false,
        customer_bank_code: 'no-bank',
        service_reference: '12345678K',
      });
    }
    // The developer-mode account does not see it.
    expect((await api.get(`${SUBSCRIPTION_PATH}/${id}`)).status).toBe(404);
  });

  it('refuses an id longer than 255 characters naming it', async () => {
    const res = await api.get(`${SUBSCRIPTION_PATH}/${long(256)}`);
    expect(res.status).toBe(400);
    expect(fieldsOf(res)).toEqual(['id']);
    const older = await api.get(`/v1/automatic-payment/subscription-status?subscription_id=${long(256)}`);
    expect(older.status).toBe(400);
    expect(fieldsOf(older)).toEqual(['subscription_id']);
    expect(fieldsOf(await api.get('/v1/automatic-payment/subscription-status'))).toEqual(['subscription_id']);
  });
});

describe('answers and credentials', () => {
  it('answers a create with exactly subscription_id (a UUID) and its redirect_url', async () => {
    const res = await api.post(SUBSCRIPTION_PATH, NEW_SUBSCRIPTION);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      subscription_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      redirect_url: `${setup.server.baseUrl}/pac-manager/${res.body.subscription_id}`,
    });
  });

  it('answers a charge intent with exactly a 12-character payment_id, which reads as a payment', async () => {
    const res = await api.post(CHARGE_PATH, newCharge(subscriptions.enabled, { transaction_id: 'INV-exact' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ payment_id: expect.stringMatching(/^[a-z0-9]{12}$/) });
    const payment = await api.get(`/v3/payments/${res.body.payment_id}`);
    expect(payment.body).toMatchObject({ payment_id: res.body.payment_id, status: 'pending', currency: 'CLP', amount: 10000, transaction_id: 'INV-exact' });
  });

  it('refuses calls without credentials', async () => {
    expect((await call(setup.server.baseUrl, 'POST', SUBSCRIPTION_PATH, { body: NEW_SUBSCRIPTION })).status).toBe(401);
    expect((await call(setup.server.baseUrl, 'POST', CHARGE_PATH, { body: newCharge(subscriptions.enabled) })).status).toBe(401);
    expect((await call(setup.server.baseUrl, 'GET', `${SUBSCRIPTION_PATH}/${subscriptions.enabled}`)).status).toBe(401);
  });

  it('works with a bearer token as the token’s account', async () => {
    const headers = { authorization: `Bearer ${await clientCredentialsToken(setup.server, setup.account)}` };
    const created = await call(setup.server.baseUrl, 'POST', SUBSCRIPTION_PATH, { headers, body: NEW_SUBSCRIPTION });
    expect(created.status).toBe(200);
    const read = await call(setup.server.baseUrl, 'GET', `/v1/automatic-payment/subscription-status?subscription_id=${created.body.subscription_id}`, {
      headers,
    });
    expect(read.body).toMatchObject({ subscription_id: created.body.subscription_id, status: 'DISABLED' });
    const charged = await call(setup.server.baseUrl, 'POST', CHARGE_PATH, { headers, body: newCharge(subscriptions.enabled) });
    expect(charged.status).toBe(200);
    expect((await api.get(`/v3/payments/${charged.body.payment_id}`)).body.receiver_id).toBe(setup.account.receiver_id);
    expect((await call(setup.server.baseUrl, 'GET', `${SUBSCRIPTION_PATH}/${subscriptions.otherAccounts}`, { headers })).status).toBe(404);
  });
});

describe('Idempotency-Key', () => {
  it('replays a subscription create and writes it once', async () => {
    const before = await countRows(setup.server.ctx.db, 'subscriptions');
    const first = await api.post(SUBSCRIPTION_PATH, NEW_SUBSCRIPTION, { 'idempotency-key': 'sub-1' });
    const second = await api.post(SUBSCRIPTION_PATH, NEW_SUBSCRIPTION, { 'idempotency-key': 'sub-1' });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await countRows(setup.server.ctx.db, 'subscriptions')).toBe(before + 1);
    expect((await api.post(SUBSCRIPTION_PATH, { ...NEW_SUBSCRIPTION, max_amount: 1 }, { 'idempotency-key': 'sub-1' })).status).toBe(422);
  });

  it('replays a charge intent and writes one payment and one debit, even when sent at once', async () => {
    const before = { payments: await countRows(setup.server.ctx.db, 'payments'), debits: await countRows(setup.server.ctx.db, 'debits') };
    const body = newCharge(subscriptions.enabled, { transaction_id: 'INV-idem' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.post(CHARGE_PATH, body, { 'idempotency-key': 'charge-1' })));
    expect(answers.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect(new Set(answers.filter((r) => r.status === 200).map((r) => r.body.payment_id)).size).toBe(1);
    const later = await api.post(CHARGE_PATH, body, { 'idempotency-key': 'charge-1' });
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body).toEqual(answers.find((r) => r.status === 200)!.body);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before.payments + 1);
    expect(await countRows(setup.server.ctx.db, 'debits')).toBe(before.debits + 1);
  });

  it('releases the key of a refused charge intent, so the corrected one runs', async () => {
    const refusedOnce = await api.post(CHARGE_PATH, newCharge(subscriptions.signed), { 'idempotency-key': 'charge-2' });
    expect(refusedOnce.status).toBe(400);
    const corrected = await api.post(CHARGE_PATH, newCharge(subscriptions.enabled), { 'idempotency-key': 'charge-2' });
    expect(corrected.status).toBe(200);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('/openapi.json', () => {
  it('describes the three operations (and the older status path) with their fields', async () => {
    const doc = (await call(setup.server.baseUrl, 'GET', '/openapi.json')).body;
    const create = doc.paths[SUBSCRIPTION_PATH].post;
    expect(create.tags).toEqual(['Automatic payments']);
    expect(Object.keys(create.responses)).toContain('200');
    const createBody = create.requestBody.content['application/json'].schema;
    expect(createBody.required.sort()).toEqual(['cancel_url', 'currency', 'email', 'max_amount', 'name', 'notify_url', 'return_url']);
    expect(createBody.properties.name.maxLength).toBe(255);
    expect(doc.paths[`${SUBSCRIPTION_PATH}/{id}`].get.responses['200']).toBeDefined();
    expect(doc.paths['/v1/automatic-payment/subscription-status'].get).toBeDefined();
    const charge = doc.paths[CHARGE_PATH].post;
    expect(Object.keys(charge.responses)).toContain('200');
    const chargeBody = charge.requestBody.content['application/json'].schema;
    expect(chargeBody.required.sort()).toEqual([
      'amount',
      'body',
      'custom',
      'error_response_url',
      'notify_url',
      'subject',
      'subscription_id',
      'transaction_id',
    ]);
    expect(chargeBody.properties.body.maxLength).toBe(5120);
  });
});
