// Unknown JSON members on v3 and the automatic payment API are ignored and named in
// Quipu-Ignored-Fields (and the request's log line), while the known members keep every rule: the
// real clients' bodies (payment_id sent to refunds, receiver_id sent to create) do exactly what their
// known members say; a bad known member next to an unknown one is still a 400 naming it, with the
// header, and nothing written; NUL, huge and nested values in an ignored member are no 500.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { logLines, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { validReceiver } from '../helpers/receivers.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, NEW_SUBSCRIPTION, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

const HEADER = 'quipu-ignored-fields';

let other: TestAccount;
let api: ReturnType<typeof client>;

const setup = useTestServer({}, { features: { refunds: true, integrator: true } });
beforeAll(async () => {
  other = await setup.server.account();
  api = client(setup.server.baseUrl, setup.account.api_key);
});

const TABLES = ['payments', 'refunds', 'subscriptions', 'debits', 'merchants', 'messages'] as const;
const rowCounts = async () => Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await countRows(setup.server.ctx.db, t)] as const)));
const fieldsOf = (res: JsonResponse) => (res.body.errors as { field: string }[]).map((e) => e.field).sort();

// expires_date is given so that two payments created a moment apart are described alike.
const ORDER = { amount: 1000, currency: 'CLP', subject: 'Order 42', transaction_id: 'T-42', custom: 'c', expires_date: '2099-01-01T00:00:00Z' };

async function paid(amount = 1000): Promise<string> {
  const created = await api.post('/v3/payments', { ...ORDER, amount });
  expect(created.status).toBe(200);
  await payByTransfer(setup.server.ctx, setup.account.merchant, created.body.payment_id);
  return created.body.payment_id as string;
}

/** A payment as GET shows it, without what differs between two payments created from the same fields. */
async function described(paymentId: string): Promise<Record<string, unknown>> {
  const {
    payment_id: _id,
    payment_url: _url,
    simplified_transfer_url: _simplified,
    transfer_url: _transfer,
    app_url: _app,
    notification_token: _token,
    conciliation_date: _date,
    ...rest
  } = (await api.get(`/v3/payments/${paymentId}`)).body;
  return rest;
}

describe('the real clients that send unknown members', () => {
  it('a refund with payment_id, as a community v3 client sends it, refunds the amount and names payment_id', async () => {
    const id = await paid(1000);
    const res = await api.post(`/v3/payments/${id}/refunds`, { payment_id: id, amount: 300 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get(HEADER)).toBe('payment_id');
    const refunds = await setup.server.ctx.db.selectFrom('refunds').select('amount').where('payment_id', '=', id).execute();
    expect(refunds.map((r) => r.amount)).toEqual([300 * 10_000]);
  });

  it("a create with receiver_id, as merchant scripts send it, creates exactly the payment its known fields say, for the caller's account", async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const withExtras = await api.post('/v3/payments', { receiver_id: other.receiver_id, ...ORDER, hash: 'abc' });
    expect(withExtras.status, JSON.stringify(withExtras.body)).toBe(200);
    expect(withExtras.headers.get(HEADER)).toBe('hash, receiver_id');
    const plain = await api.post('/v3/payments', ORDER);
    expect(plain.headers.get(HEADER)).toBeNull();
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before + 2);
    const created = await described(withExtras.body.payment_id);
    expect(created.receiver_id).toBe(setup.account.receiver_id);
    expect(created).toEqual(await described(plain.body.payment_id));
    expect((await client(setup.server.baseUrl, other.api_key).get(`/v3/payments/${withExtras.body.payment_id}`)).status).toBe(404);
  });
});

describe('known members keep every rule next to unknown ones', () => {
  it.each([
    ['POST /v3/payments', '/v3/payments', { ...ORDER, amount: 'ten', colour: 'blue' }, ['amount']],
    [
      'POST /v3/payments (schema and account rules)',
      '/v3/payments',
      { ...ORDER, subject: 'x'.repeat(300), mandatory_payment_method: 'CARD', colour: 'blue' },
      ['subject', 'mandatory_payment_method'],
    ],
    ['POST /v3/receivers', '/v3/receivers', { ...validReceiver, country_code: 'XX', colour: 'blue' }, ['country_code']],
    ['POST /v1/automatic-payment/subscription', '/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, email: 'nope', colour: 'blue' }, ['email']],
    [
      'POST /v1/automatic-payment/charge-intent',
      '/v1/automatic-payment/charge-intent',
      { ...newCharge('no-such-subscription'), colour: 'blue' },
      ['subscription_id'],
    ],
    ['POST /v3/payments (a NUL)', '/v3/payments', { ...ORDER, subject: 'a\u0000b', colour: 'blue' }, ['subject']],
    ['POST /v3/receivers (a NUL)', '/v3/receivers', { ...validReceiver, business_name: 'a\u0000b', colour: 'blue' }, ['business_name']],
    [
      'POST /v1/automatic-payment/subscription (a NUL)',
      '/v1/automatic-payment/subscription',
      { ...NEW_SUBSCRIPTION, name: 'a\u0000b', colour: 'blue' },
      ['name'],
    ],
    [
      'POST /v1/automatic-payment/charge-intent (a NUL)',
      '/v1/automatic-payment/charge-intent',
      { ...newCharge('no-such-subscription'), subject: 'a\u0000b', colour: 'blue' },
      ['subject'],
    ],
  ] as const)('%s: a 400 naming the known member, the header naming the unknown one, nothing written', async (_name, path, body, fields) => {
    const before = await rowCounts();
    const res = await api.post(path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(fieldsOf(res)).toEqual([...fields].sort());
    expect(res.headers.get(HEADER)).toBe('colour');
    expect(await rowCounts()).toEqual(before);
  });

  it('on refunds: a bad or null amount is refused next to payment_id, and nothing is refunded', async () => {
    const id = await paid(1000);
    for (const amount of [0, '100', null]) {
      const res = await api.post(`/v3/payments/${id}/refunds`, { payment_id: id, amount });
      expect(res.status, String(amount)).toBe(400);
      expect(fieldsOf(res)).toEqual(['amount']);
      expect(res.headers.get(HEADER)).toBe('payment_id');
    }
    expect(await setup.server.ctx.db.selectFrom('refunds').select('amount').where('payment_id', '=', id).execute()).toEqual([]);
  });

  it('a member given twice is refused, unknown or not: the request would mean two things', async () => {
    const res = await call(setup.server.baseUrl, 'POST', '/v3/payments', {
      apiKey: setup.account.api_key,
      headers: { 'content-type': 'application/json' },
      rawBody: '{"amount":1000,"currency":"CLP","subject":"x","colour":1,"colour":2}',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'colour', message: 'must be given once' }]);
  });
});

describe('whatever an ignored member holds', () => {
  it('is ignored: NUL, nested, huge values and names no header could carry as they are', async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const nested = { a: [{ b: { c: [1, 'x\u0000y', null] } }] };
    const res = await api.post('/v3/payments', {
      ...ORDER,
      note: 'a\u0000b',
      nested,
      huge: 'x'.repeat(2 * 1024 * 1024),
      'a\u0000b': 1,
      'line\r\nX-Injected: 1': 1,
      'a, b': 1,
      año: 1,
      '\ud800': 1,
      empty: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('x-injected')).toBeNull();
    // A null member is "not given", whatever its name (api-conventions.md): nothing to name.
    expect(res.headers.get(HEADER)).toBe('%EF%BF%BD, a%00b, a%2C%20b, a%C3%B1o, huge, line%0D%0AX-Injected%3A%201, nested, note');
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before + 1);
    expect(await described(res.body.payment_id)).toEqual(await described((await api.post('/v3/payments', ORDER)).body.payment_id));
  });

  it('names at most 1024 characters of members, and counts the rest', async () => {
    const names = Array.from({ length: 300 }, (_, i) => `extra_${String(i).padStart(3, '0')}`);
    const res = await api.post('/v3/payments', { ...ORDER, ...Object.fromEntries(names.map((n) => [n, 1])) });
    expect(res.status).toBe(200);
    const header = res.headers.get(HEADER)!;
    expect(header.length).toBeLessThanOrEqual(1024);
    const listed = header.split(', ');
    const more = /^\+(\d+) more$/.exec(listed.pop()!);
    expect(listed).toEqual(names.slice(0, listed.length));
    expect(Number(more![1])).toBe(names.length - listed.length);
  });

  it('is named alone when its name is longer than the header may be', async () => {
    const res = await api.post('/v3/payments', { ...ORDER, ['n'.repeat(5000)]: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get(HEADER)).toBe('+1 more');
  });
});

describe('every v3 and automatic payment body', () => {
  it('receivers: an integrator opens a receiver with an unknown member next to the known ones', async () => {
    const before = await countRows(setup.server.ctx.db, 'merchants');
    const res = await api.post('/v3/receivers', { ...validReceiver, website: 'https://shop.example' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get(HEADER)).toBe('website');
    expect(await countRows(setup.server.ctx.db, 'merchants')).toBe(before + 1);
    const child = await setup.server.ctx.merchants.byReceiverId(Number(res.body.receiver_id));
    expect(child).toMatchObject({ parentReceiverId: setup.account.receiver_id, notifyUrl: validReceiver.notify_url, users: [validReceiver.admin_email] });
  });

  it('a subscription and a charge intent with extra members are created from their known members', async () => {
    const subscription = await api.post('/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, plan: 'gold', receiver_id: other.receiver_id });
    expect(subscription.status, JSON.stringify(subscription.body)).toBe(200);
    expect(subscription.headers.get(HEADER)).toBe('plan, receiver_id');
    const subscriptionId = subscription.body.subscription_id as string;
    expect((await api.get(`/v1/automatic-payment/subscription/${subscriptionId}`)).body).toMatchObject({ subscription_id: subscriptionId, status: 'DISABLED' });
    await signAtDemoBank(setup.server.ctx, subscriptionId);

    const charge = await api.post('/v1/automatic-payment/charge-intent', { ...newCharge(subscriptionId, { amount: 12000 }), currency: 'USD', max_amount: 1 });
    expect(charge.status, JSON.stringify(charge.body)).toBe(200);
    expect(charge.headers.get(HEADER)).toBe('currency, max_amount');
    expect((await api.get(`/v3/payments/${charge.body.payment_id}`)).body).toMatchObject({
      amount: 12000,
      currency: 'CLP',
      subject: 'November',
      transaction_id: 'INV-1',
    });
  });

  it('v2 forms ignore unknown fields too, naming them', async () => {
    const res = await call(setup.server.baseUrl, 'POST', '/2.0/payments', {
      apiKey: setup.account.api_key,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({ amount: '1000', currency: 'CLP', subject: 'x', colour: 'blue' }).toString(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get(HEADER)).toBe('colour');
  });

  it('publishes the bodies open, saying what happens to other members', async () => {
    const doc = (await call(setup.server.baseUrl, 'GET', '/openapi.json')).body;
    const operations = [
      ['/v3/payments', true],
      ['/v3/payments/{id}/confirm', false],
      ['/v3/payments/{id}/refunds', false],
      ['/v3/receivers', true],
      ['/v1/automatic-payment/subscription', true],
      ['/v1/automatic-payment/charge-intent', true],
    ] as const;
    for (const [path, required] of operations) {
      const body = doc.paths[path].post.requestBody;
      expect(body.required, path).toBe(required);
      expect(body.description, path).toMatch(/Quipu-Ignored-Fields/);
      expect(body.content['application/json'].schema.additionalProperties, path).toBeUndefined();
    }
  });
});

describe('Idempotency-Key and ignored members', () => {
  it('compares the known members only; a replay names the members the retry sent', async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const first = await api.post('/v3/payments', { ...ORDER, receiver_id: 1 }, { 'idempotency-key': 'ignored-1' });
    const retry = await api.post('/v3/payments', { ...ORDER, hash: 'h' }, { 'idempotency-key': 'ignored-1' });
    expect(first.status).toBe(200);
    expect(first.headers.get(HEADER)).toBe('receiver_id');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get(HEADER)).toBe('hash');
    expect(retry.body).toEqual(first.body);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before + 1);
    const changed = await api.post('/v3/payments', { ...ORDER, amount: 2000, receiver_id: 1 }, { 'idempotency-key': 'ignored-1' });
    expect(changed.status).toBe(422);
    expect(changed.headers.get(HEADER)).toBe('receiver_id');
  });
});

describe('the request log line', () => {
  const processes = withServerProcesses();

  it('names the ignored members at info level, under the request id, and the likely typos among them (a developer-mode account)', async () => {
    const { database, started } = processes;
    const quipu = await serveOnFreePort({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', RUN_WORKER: 'false' }, started);
    const apiKey = /api_key\s+(\S+)/.exec(await quipu.waitFor(/API reference/))![1]!;
    const res = await call(quipu.baseUrl, 'POST', '/v3/payments', {
      apiKey,
      headers: { 'x-request-id': 'ignored-log-1' },
      body: { ...ORDER, receiver_id: 1, notfy_url: 'https://x.example' },
    });
    expect(res.status).toBe(200);
    const lines = () => logLines(quipu).filter((line) => line.reqId === 'ignored-log-1' && line.msg === 'request');
    await expect.poll(lines, { timeout: 5_000 }).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 30, status: 200, ignored_fields: 'notfy_url, receiver_id', likely_typos: 'notfy_url=notify_url' });
  }, 60_000);
});
