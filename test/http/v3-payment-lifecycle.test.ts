// Deleting, confirming and refunding payments: the contract's preconditions, the state they leave,
// and refunds that can never add up to more than was paid, even when they race.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { csrfOf, PayerSession, tabAtCoordinates, titleOf } from '../helpers/payer-session.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let plain: TestAccount;
let refunding: TestAccount;
let confirming: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  plain = await server.account();
  refunding = await server.account({ features: { refunds: true } });
  confirming = await server.account({ features: { refunds: true, confirm: true } });
});
afterAll(async () => server?.close());

async function newPayment(account: TestAccount, body: Record<string, unknown> = {}) {
  const res = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Order', ...body });
  expect(res.status).toBe(200);
  return res.body.payment_id as string;
}

async function paid(account: TestAccount, body: Record<string, unknown> = {}) {
  const id = await newPayment(account, body);
  await payByTransfer(server.ctx, account.merchant, id);
  return id;
}

describe('DELETE /v3/payments/{id}', () => {
  it('deletes a pending payment, which is then gone', async () => {
    const api = client(server.baseUrl, plain.api_key);
    const id = await newPayment(plain);
    const res = await api.delete(`/v3/payments/${id}`);
    expect(res.status).toBe(200);
    assertProviderSchema('success', res.body);
    expect((await api.get(`/v3/payments/${id}`)).status).toBe(404);
    expect((await api.delete(`/v3/payments/${id}`)).status).toBe(404);
  });

  it('refuses to delete a paid payment, saying why, and leaves it as it was', async () => {
    const api = client(server.baseUrl, plain.api_key);
    const id = await paid(plain);
    const res = await api.delete(`/v3/payments/${id}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/pending/);
    const got = await api.get(`/v3/payments/${id}`);
    expect(got.body).toMatchObject({ status: 'done', status_detail: 'normal' });
  });

  it('refuses to delete a payment in verification: the payer has sent the transfer', async () => {
    const api = client(server.baseUrl, plain.api_key);
    const id = await newPayment(plain);
    // DemoBank leaves a transfer with other coordinates than 11 22 33 uncertain: the payment is verifying.
    const tab = await tabAtCoordinates(server.baseUrl, id);
    expect((await tab.submit({ c1: '12', c2: '34', c3: '56' })).status).toBe(303);
    expect((await api.get(`/v3/payments/${id}`)).body).toMatchObject({ status: 'verifying', status_detail: 'pending' });
    const res = await api.delete(`/v3/payments/${id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, message: expect.stringContaining('verifying') });
    expect((await api.get(`/v3/payments/${id}`)).body).toMatchObject({ status: 'verifying', status_detail: 'pending' });
  });

  it('deletes a payment the payer declined (rejected-by-payer)', async () => {
    const api = client(server.baseUrl, plain.api_key);
    const id = await newPayment(plain);
    const session = new PayerSession(server.baseUrl);
    const declined = await session.post(`/payment/info/${id}/decline`, { _csrf: csrfOf(await session.get(`/payment/info/${id}`)) });
    expect(declined.status, titleOf(declined)).toBe(303);
    expect((await api.get(`/v3/payments/${id}`)).body).toMatchObject({ status: 'pending', status_detail: 'rejected-by-payer' });
    expect((await api.delete(`/v3/payments/${id}`)).status).toBe(200);
    expect((await api.get(`/v3/payments/${id}`)).status).toBe(404);
  });

  it('answers 404 for unknown ids and for payments of other accounts', async () => {
    const id = await newPayment(plain);
    const other = client(server.baseUrl, refunding.api_key);
    expect((await other.delete(`/v3/payments/${id}`)).status).toBe(404);
    expect((await other.get(`/v3/payments/${id}`)).status).toBe(404);
    expect((await other.delete('/v3/payments/aaaaaaaaaaaa')).status).toBe(404);
    expect((await client(server.baseUrl, plain.api_key).get(`/v3/payments/${id}`)).status).toBe(200);
  });
});

describe('POST /v3/payments/{id}/confirm', () => {
  it('is only for accounts that contracted it', async () => {
    const id = await paid(refunding);
    const res = await client(server.baseUrl, refunding.api_key).post(`/v3/payments/${id}/confirm`);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/not contracted/);
  });

  it('refuses payments that are not paid', async () => {
    const id = await newPayment(confirming);
    const res = await client(server.baseUrl, confirming.api_key).post(`/v3/payments/${id}/confirm`);
    expect(res.status).toBe(400);
  });

  it('takes no fields: an empty object passes, an unknown member is ignored and named', async () => {
    const api = client(server.baseUrl, confirming.api_key);
    expect((await api.post(`/v3/payments/${await paid(confirming)}/confirm`, {})).status).toBe(200);
    const ignoring = await api.post(`/v3/payments/${await paid(confirming)}/confirm`, { bogus: 1 });
    expect(ignoring.status).toBe(200);
    expect(ignoring.headers.get('quipu-ignored-fields')).toBe('bogus');
  });

  it('schedules delivery of the funds for the next business day; after that no refund is possible', async () => {
    const api = client(server.baseUrl, confirming.api_key);
    // Friday 29 June 2035, noon in Santiago: Saint Peter and Saint Paul moves to Monday 2 July, so
    // the next business day is Tuesday 3 July; funds arrive at 10:00 there (UTC-4 in winter).
    expect((await api.post('/sandbox/clock', { to: '2035-06-29T16:00:00Z' })).status).toBe(200);
    const id = await paid(confirming);
    const res = await api.post(`/v3/payments/${id}/confirm`, undefined, { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    assertProviderSchema('success', res.body);
    expect(res.body.message).toContain('2035-07-03T14:00:00.000Z');
    expect((await api.post(`/v3/payments/${id}/confirm`)).status).toBe(400);
    expect((await api.post(`/v3/payments/${id}/refunds`, { amount: 100 })).status).toBe(200);

    expect((await api.post('/sandbox/clock', { to: '2035-07-03T14:00:01Z' })).status).toBe(200);
    const late = await api.post(`/v3/payments/${id}/refunds`, { amount: 100 });
    expect(late.status).toBe(400);
    expect(late.body.message).toMatch(/delivered/);
  });
});

describe('POST /v3/payments/{id}/refunds', () => {
  it('is only for accounts that collect in a provider account', async () => {
    const id = await paid(plain);
    const before = await countRows(server.ctx.db, 'refunds');
    const res = await client(server.baseUrl, plain.api_key).post(`/v3/payments/${id}/refunds`, {});
    expect(res.status).toBe(403);
    expect(await countRows(server.ctx.db, 'refunds')).toBe(before);
  });

  it('refuses payments that were not paid', async () => {
    const id = await newPayment(refunding);
    const res = await client(server.baseUrl, refunding.api_key).post(`/v3/payments/${id}/refunds`, {});
    expect(res.status).toBe(400);
  });

  it('refunds in parts; the last part reverses the payment', async () => {
    const api = client(server.baseUrl, refunding.api_key);
    const id = await paid(refunding, { amount: 1000 });
    const first = await api.post(`/v3/payments/${id}/refunds`, { amount: 300 });
    expect(first.status).toBe(200);
    assertProviderSchema('success', first.body);
    expect((await api.get(`/v3/payments/${id}`)).body.status_detail).toBe('normal');
    const tooMuch = await api.post(`/v3/payments/${id}/refunds`, { amount: 701 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errors[0].field).toBe('amount');
    expect((await api.post(`/v3/payments/${id}/refunds`, { amount: 700 })).status).toBe(200);
    const got = await api.get(`/v3/payments/${id}`);
    expect(got.body).toMatchObject({ status: 'done', status_detail: 'reversed' });
    expect((await api.post(`/v3/payments/${id}/refunds`, { amount: 1 })).status).toBe(400);
  });

  it('refunds the whole amount when no amount is given, with or without a body', async () => {
    const api = client(server.baseUrl, refunding.api_key);
    const withEmpty = await paid(refunding);
    expect((await api.post(`/v3/payments/${withEmpty}/refunds`, {})).status).toBe(200);
    expect((await api.get(`/v3/payments/${withEmpty}`)).body.status_detail).toBe('reversed');
    const withNone = await paid(refunding);
    expect((await api.post(`/v3/payments/${withNone}/refunds`)).status).toBe(200);
    expect((await api.get(`/v3/payments/${withNone}`)).body.status_detail).toBe('reversed');
  });

  it('refuses an amount given as null or empty rather than refunding everything', async () => {
    const api = client(server.baseUrl, refunding.api_key);
    const id = await paid(refunding, { amount: 1000 });
    const before = await countRows(server.ctx.db, 'refunds');
    for (const amount of [null, '']) {
      const res = await api.post(`/v3/payments/${id}/refunds`, { amount });
      expect(res.status, String(amount)).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'amount', message: 'must be a number' }]);
    }
    expect(await countRows(server.ctx.db, 'refunds')).toBe(before);
    expect((await api.get(`/v3/payments/${id}`)).body.status_detail).toBe('normal');
  });

  it('refuses bad amounts by field', async () => {
    const api = client(server.baseUrl, refunding.api_key);
    const id = await paid(refunding, { amount: 1000 });
    for (const amount of [0, -1, 10.5, '100']) {
      const res = await api.post(`/v3/payments/${id}/refunds`, { amount });
      expect(res.status, String(amount)).toBe(400);
      expect(res.body.errors[0].field).toBe('amount');
    }
    const nextToUnknown = await api.post(`/v3/payments/${id}/refunds`, { amount: 0, reason: 'x' });
    expect(nextToUnknown.status).toBe(400);
    expect(nextToUnknown.body.errors).toEqual([{ field: 'amount', message: expect.any(String) }]);
    expect(nextToUnknown.headers.get('quipu-ignored-fields')).toBe('reason');
    expect((await api.get(`/v3/payments/${id}`)).body.status_detail).toBe('normal');
  });

  it('never refunds more than was paid when requests race', async () => {
    const api = client(server.baseUrl, refunding.api_key);
    const id = await paid(refunding, { amount: 1000 });
    const results = await Promise.all(Array.from({ length: 12 }, () => api.post(`/v3/payments/${id}/refunds`, { amount: 300 })));
    const accepted = results.filter((r) => r.status === 200).length;
    expect(accepted).toBe(3);
    expect(results.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    const rows = await server.ctx.db.selectFrom('refunds').select('amount').where('payment_id', '=', id).execute();
    expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(3 * 300 * 10_000);
    expect((await api.get(`/v3/payments/${id}`)).body.status_detail).toBe('normal');
  });

  it('refunds in decimals for currencies that have them, exactly', async () => {
    const api = client(server.baseUrl, refunding.api_key);
    const id = await paid(refunding, { amount: 0.3, currency: 'USD' });
    expect((await api.post(`/v3/payments/${id}/refunds`, { amount: 0.1 })).status).toBe(200);
    expect((await api.post(`/v3/payments/${id}/refunds`, { amount: 0.2 })).status).toBe(200);
    expect((await api.get(`/v3/payments/${id}`)).body.status_detail).toBe('reversed');
  });
});
