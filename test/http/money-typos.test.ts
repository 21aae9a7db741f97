// A typo must never move money. A money-moving request (a refund on v3, v2 and the dashboard, a
// charge intent, a credit fed by the operator) that carries a member Quipu cannot read and lacks
// the member it acts on is refused naming both, and nothing is refunded, charged or credited: no
// row of any table, no state of the payment changes. A full refund still happens when asked for
// plainly, real clients' extra members beside a valid amount keep working, developers are told of
// likely typos, and no body nested however deep is a 500, on any route.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { JSON_DEPTH_LIMIT } from '../../src/http/json-body.js';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { everyTableCount, payByTransfer } from '../helpers/payments.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { concretePath, registeredRoutes } from '../helpers/routes.js';
import { CHOSEN_PASSWORD, type TestAccount, useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

const OPERATOR_TOKEN = 'operator-token-for-money-typo-tests';
const FORM = 'application/x-www-form-urlencoded';
const TYPOS = 'quipu-likely-typos';

let production: TestAccount;
let api: ReturnType<typeof client>;
let subscriptionId: string;

const setup = useTestServer({ OPERATOR_TOKEN }, { features: { refunds: true } });
beforeAll(async () => {
  production = await setup.server.account({ developer: false, features: { refunds: true } });
  api = client(setup.server.baseUrl, setup.account.api_key);
  subscriptionId = await createSubscriptionOver(api);
  await signAtDemoBank(setup.server.ctx, subscriptionId);
});

/** Every table's row count, and every payment's state and refunded amount: what "nothing moved" is checked against. */
async function books(): Promise<unknown> {
  const counts = await everyTableCount(setup.server.ctx.db);
  const payments = await setup.server.ctx.db
    .selectFrom('payments')
    .select(['payment_id', 'status', 'status_detail', 'refunded', 'version'])
    .orderBy('payment_id')
    .execute();
  return { counts, payments };
}

async function paid(): Promise<string> {
  const created = await api.post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order 42' });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await payByTransfer(setup.server.ctx, setup.account.merchant, created.body.payment_id);
  return created.body.payment_id as string;
}

const fieldsOf = (res: JsonResponse) => (res.body.errors as { field: string }[]).map((e) => e.field).sort();
const json = (path: string, rawBody: string, apiKey = setup.account.api_key) =>
  call(setup.server.baseUrl, 'POST', path, { apiKey, rawBody, headers: { 'content-type': 'application/json' } });
const form = (path: string, rawBody: string) =>
  call(setup.server.baseUrl, 'POST', path, { apiKey: setup.account.api_key, rawBody, headers: { 'content-type': FORM } });
const refundedOf = async (id: string) =>
  (await setup.server.ctx.db.selectFrom('refunds').select('amount').where('payment_id', '=', id).execute()).map((r) => r.amount);

describe('a money-moving request Quipu cannot read moves nothing', () => {
  // [what, how it is sent, the fields the 400 names (undefined: only that it is a 400)]
  const REFUSED: [string, (id: string) => Promise<JsonResponse>, string[] | undefined][] = [
    ['v3 refund, amount misspelled', (id) => json(`/v3/payments/${id}/refunds`, '{"amout":100}'), ['amount', 'amout']],
    ['v3 refund, amount capitalised', (id) => json(`/v3/payments/${id}/refunds`, '{"Amount":100}'), ['Amount', 'amount']],
    ['v3 refund, amount nested in another member', (id) => json(`/v3/payments/${id}/refunds`, '{"refund":{"amount":100}}'), ['amount', 'refund']],
    ['v3 refund, amount under __proto__', (id) => json(`/v3/payments/${id}/refunds`, '{"__proto__":{"amount":100}}'), ['body']],
    ['v3 refund, amount under an escaped __proto__', (id) => json(`/v3/payments/${id}/refunds`, '{"\\u005f_proto__":{"amount":100}}'), ['body']],
    ['v3 refund, amount under constructor.prototype', (id) => json(`/v3/payments/${id}/refunds`, '{"constructor":{"prototype":{"amount":100}}}'), ['body']],
    ['v3 refund, a null typo', (id) => json(`/v3/payments/${id}/refunds`, '{"amout":null}'), ['amount', 'amout']],
    ['v3 refund, payment_id of another payment', (id) => json(`/v3/payments/${id}/refunds`, '{"payment_id":"zzzzzzzzzzzz"}'), ['amount', 'payment_id']],
    ['v3 refund, nested past the depth limit', (id) => json(`/v3/payments/${id}/refunds`, `{"amount":${'['.repeat(100_000)}${']'.repeat(100_000)}}`), ['body']],
    ['v2 refund (JSON), amount misspelled', (id) => json(`/2.0/payments/${id}/refunds`, '{"amout":100}'), ['amount', 'amout']],
    ['v2 refund (JSON), amount under __proto__', (id) => json(`/2.0/payments/${id}/refunds`, '{"__proto__":{"amount":100}}'), ['body']],
    ['v2 refund (form), amount misspelled', (id) => form(`/2.0/payments/${id}/refunds`, 'amout=100'), ['amount', 'amout']],
    ['v2 refund (form), amount under __proto__', (id) => form(`/2.0/payments/${id}/refunds`, '__proto__%5Bamount%5D=100'), ['__proto__[amount]', 'amount']],
    ['v2 refund (form), amount as a nested form member', (id) => form(`/2.0/payments/${id}/refunds`, 'refund%5Bamount%5D=100'), ['amount', 'refund[amount]']],
    ['v2 refund (form), amount given twice', (id) => form(`/2.0/payments/${id}/refunds`, 'amount=100&amount=5000'), ['amount']],
    // A refund cannot be undone: a stray null or empty amount is no plain "refund everything".
    ['v2 refund (JSON), amount null', (id) => json(`/2.0/payments/${id}/refunds`, '{"amount":null}'), ['amount']],
    ['v2 refund (JSON), amount empty', (id) => json(`/2.0/payments/${id}/refunds`, '{"amount":""}'), ['amount']],
    ['v2 refund (form), amount empty', (id) => form(`/2.0/payments/${id}/refunds`, 'amount='), ['amount']],
  ];

  it.each(REFUSED)('%s: a 400 naming the fields, nothing refunded', async (_what, send, fields) => {
    const id = await paid();
    const before = await books();
    const res = await send(id);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    if (fields) expect(fieldsOf(res)).toEqual(fields);
    expect(await books()).toEqual(before);
    expect(await refundedOf(id)).toEqual([]);
  });

  it('the refusal names the member a typo likely meant', async () => {
    const res = await json(`/v3/payments/${await paid()}/refunds`, '{"amout":100}');
    expect(res.body.errors).toEqual([
      { field: 'amout', message: 'is not a known field (did you mean amount?)' },
      { field: 'amount', message: expect.stringContaining('is required when the request carries a member Quipu cannot read') },
    ]);
  });

  it.each([
    ['amount misspelled', { amout: 10000 }, ['amount', 'amout']],
    ['amount under another member', { charge: { amount: 10000 } }, ['amount', 'charge']],
    ['subscription_id misspelled', { subscripton_id: 'x' }, ['subscripton_id', 'subscription_id']],
  ] as const)('a charge intent with %s: a 400 naming both, nothing charged', async (_what, fields, named) => {
    const body: Record<string, unknown> = { ...newCharge(subscriptionId), ...fields };
    if ('amout' in fields || 'charge' in fields) delete body.amount;
    if ('subscripton_id' in fields) delete body.subscription_id;
    const before = await books();
    const res = await api.post('/v1/automatic-payment/charge-intent', body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(fieldsOf(res)).toEqual([...named].sort());
    expect(await books()).toEqual(before);
  });

  it('an operator credit with its amount misspelled is refused, and no payment is reconciled', async () => {
    const created = await api.post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order 42' });
    const before = await books();
    const res = await call(setup.server.baseUrl, 'POST', '/operator/v1/credits', {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      body: {
        credits: [
          { bank_reference: 'mov-typo-1', account: 'x', amout: 5000, currency: 'CLP', reference: created.body.payment_id, credited_at: '2026-11-26T12:00:00Z' },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(fieldsOf(res)).toContain('credits.0.amout');
    expect(await books()).toEqual(before);
  });

  it('a dashboard refund form without its amount and with another field refunds nothing', async () => {
    const user = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'typos@shop.test' });
    const session = new PayerSession(setup.server.baseUrl);
    const signIn = await session.get('/dashboard/sign-in');
    expect((await session.post('/dashboard/sign-in', { _csrf: csrfOf(signIn), email: user.email, password: user.password })).status).toBe(303);
    const id = await paid();
    const page = await session.get(`/dashboard/payments/${id}`);
    const before = await books();
    const refused = await session.post(`/dashboard/payments/${id}/refund`, { _csrf: csrfOf(page), amout: '100' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('amout');
    expect(await books()).toEqual(before);
    const plain = await session.post(`/dashboard/payments/${id}/refund`, { _csrf: csrfOf(page), amount: '' });
    expect(plain.status).toBe(303);
    expect(await refundedOf(id)).toEqual([5000 * 10_000]);
  });
});

describe('what is read as it stands keeps working', () => {
  it('no body, an empty body and {} refund everything: asked for plainly', async () => {
    for (const rawBody of [undefined, '', '{}']) {
      const id = await paid();
      const res = await call(setup.server.baseUrl, 'POST', `/v3/payments/${id}/refunds`, {
        apiKey: setup.account.api_key,
        rawBody,
        headers: rawBody === undefined ? {} : { 'content-type': 'application/json' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await refundedOf(id)).toEqual([5000 * 10_000]);
    }
  });

  it("payment_id repeating the path's own id reads as the payment it names: a full refund", async () => {
    const id = await paid();
    const res = await api.post(`/v3/payments/${id}/refunds`, { payment_id: id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('quipu-ignored-fields')).toBe('payment_id');
    expect(await refundedOf(id)).toEqual([5000 * 10_000]);
  });

  it('extra members beside a valid amount refund that amount (khipu-tools sends payment_id with it)', async () => {
    const id = await paid();
    for (const body of [
      { payment_id: id, amount: 100 },
      { amount: 200, amout: 5000 },
      { amount: 300, reason: 'customer asked' },
    ]) {
      const res = await api.post(`/v3/payments/${id}/refunds`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect(await refundedOf(id)).toEqual([100, 200, 300].map((a) => a * 10_000));
  });

  it('a v2 refund form with an unknown field beside its amount refunds that amount, naming the field', async () => {
    const id = await paid();
    const res = await form(`/2.0/payments/${id}/refunds`, 'amount=100&colour=blue');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('quipu-ignored-fields')).toBe('colour');
    expect(await refundedOf(id)).toEqual([100 * 10_000]);
  });

  it('a charge intent with extra members beside its known ones is created', async () => {
    const res = await api.post('/v1/automatic-payment/charge-intent', { ...newCharge(subscriptionId), currency: 'USD' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe('likely typos, in developer mode', () => {
  it('are named beside the member they likely mean, in a header of their own', async () => {
    const res = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x', subjet: 'y', notifyurl: 'http://localhost/n', colour: 'blue' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('quipu-ignored-fields')).toBe('colour, notifyurl, subjet');
    expect(res.headers.get(TYPOS)).toBe('notifyurl=notify_url, subjet=subject');
    const refund = await api.post(`/v3/payments/${await paid()}/refunds`, { amount: 100, amuont: 1 });
    expect(refund.headers.get(TYPOS)).toBe('amuont=amount');
  });

  it('are not named for a production account, nor when no member is close to a known one', async () => {
    const prod = await client(setup.server.baseUrl, production.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x', subjet: 'y' });
    expect(prod.status, JSON.stringify(prod.body)).toBe(200);
    expect(prod.headers.get('quipu-ignored-fields')).toBe('subjet');
    expect(prod.headers.get(TYPOS)).toBeNull();
    const far = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x', colour: 'blue', receiver_id: 1 });
    expect(far.headers.get(TYPOS)).toBeNull();
  });
});

describe('JSON nested past the limit', () => {
  const DEEP = [
    ['arrays', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ['objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
    ['a known member', `{"amount":1000,"currency":"CLP","subject":${'['.repeat(JSON_DEPTH_LIMIT)}${']'.repeat(JSON_DEPTH_LIMIT)}}`],
  ] as const;

  it.each(DEEP)('as %s: a v3 payment or receiver body is a 400 naming the limit, nothing written', async (_what, body) => {
    const before = await books();
    for (const path of ['/v3/payments', '/v3/receivers']) {
      const res = await json(path, body);
      expect(res.status, path).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'body', message: `must not nest arrays and objects more than ${JSON_DEPTH_LIMIT} levels deep` }]);
    }
    expect(await books()).toEqual(before);
  });

  it('on every route that reads JSON: a 400 naming the limit, never a 500', async () => {
    const deep = DEEP[0][1];
    const failures: string[] = [];
    for (const { method, url } of registeredRoutes(setup.server.app).filter((route) => !['GET', 'HEAD'].includes(route.method))) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...(url.startsWith('/operator/') ? { authorization: `Bearer ${OPERATOR_TOKEN}` } : { 'x-api-key': setup.account.api_key }),
      };
      const path = concretePath(url);
      const send = (body: string) =>
        fetch(`${setup.server.baseUrl}${path}`, { method, headers, body, redirect: 'manual' }).then(async (res) => ({
          status: res.status,
          text: await res.text(),
        }));
      const malformed = await send('{"x":');
      const answer = await send(deep);
      if (answer.status >= 500) failures.push(`${method} ${url}: ${answer.status}`);
      // A route that reads JSON tells a malformed body from a good one; others refuse before reading it.
      else if (malformed.status === 400 && /JSON/i.test(malformed.text) && !(answer.status === 400 && answer.text.includes('levels deep')))
        failures.push(`${method} ${url}: ${answer.status} ${answer.text.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
  });
});
