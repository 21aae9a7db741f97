// What runs before a request is authenticated, or reads a signed-in user's text, is linear and
// bounded: each attack below once froze the whole server for seconds to minutes (a quadratic form
// parser, a backtracking pattern on amounts). Each is sent at a size where the old cost would run
// for hours, so the test would time out; that the answer comes, is the right refusal, and a
// request sent meanwhile is answered, shows the cost is gone. No timing is asserted.
import { describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { signature, stringToSign } from '../../src/domain/v2-signature.js';
import { call, client } from '../helpers/http.js';
import { payByTransfer } from '../helpers/payments.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, useTestServer } from '../helpers/server.js';

const FORM = 'application/x-www-form-urlencoded';

const setup = useTestServer({}, { features: { refunds: true } });

/** The answer to `attack`, and to a health check sent while it runs. */
async function withHealthCheck<T>(attack: Promise<T>): Promise<[T, number]> {
  const health = fetch(`${setup.server.baseUrl}/healthz`).then((res) => res.status);
  return Promise.all([attack, health]);
}

/** 1000…0001: the shape that made the trailing-zero pattern retry from every zero. */
const zerosBetweenOnes = (length: number) => `1${'0'.repeat(length - 2)}1`;

describe('v2 forms, before the signature is checked', () => {
  it('one field repeated 500,000 times (2 MB) under a signature of a receiver that does not exist: a 400 naming the body, before any signature work', async () => {
    const body = 'a=1&'.repeat(500_000);
    const [res, health] = await withHealthCheck(
      call(setup.server.baseUrl, 'POST', '/2.0/payments', { rawBody: body, headers: { 'content-type': FORM, authorization: `999999:${'0'.repeat(64)}` } }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'body', message: 'must have at most 256 fields' }]);
    expect(health).toBe(200);
  });

  it('a field repeated within the bound, correctly signed by a known receiver: a 400 naming the repeated field', async () => {
    const params: [string, string][] = Array.from({ length: 200 }, () => ['subject', 'x']);
    const url = `${setup.server.config.publicBaseUrl}/api/2.0/payments`;
    const hash = signature(setup.account.secret, stringToSign('POST', url, params));
    const res = await call(setup.server.baseUrl, 'POST', '/api/2.0/payments', {
      rawBody: new URLSearchParams(params).toString(),
      headers: { 'content-type': FORM, authorization: `${setup.account.receiver_id}:${hash}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'subject', message: 'must be given once' }]);
  });

  it('an 800 KB amount of the form 1000…0001 signed wrongly for a known receiver: 403', async () => {
    const body = new URLSearchParams({ subject: 'x', currency: 'CLP', amount: zerosBetweenOnes(800_000) }).toString();
    const [res, health] = await withHealthCheck(
      call(setup.server.baseUrl, 'POST', '/2.0/payments', {
        rawBody: body,
        headers: { 'content-type': FORM, authorization: `${setup.account.receiver_id}:${'0'.repeat(64)}` },
      }),
    );
    expect(res.status).toBe(403);
    expect(health).toBe(200);
  });

  it('the same amount correctly signed: a 400 naming amount, nothing created', async () => {
    const params: [string, string][] = [
      ['subject', 'x'],
      ['currency', 'CLP'],
      ['amount', zerosBetweenOnes(800_000)],
    ];
    const hash = signature(setup.account.secret, stringToSign('POST', `${setup.server.config.publicBaseUrl}/2.0/payments`, params));
    const res = await call(setup.server.baseUrl, 'POST', '/2.0/payments', {
      rawBody: new URLSearchParams(params).toString(),
      headers: { 'content-type': FORM, authorization: `${setup.account.receiver_id}:${hash}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['amount']);
  });
});

describe('amounts a signed-in user types', () => {
  it("the dashboard's refund form with a 600 KB amount: a 400 naming amount, nothing refunded", async () => {
    const user = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'freeze@shop.test' });
    const session = new PayerSession(setup.server.baseUrl);
    const form = await session.get('/dashboard/sign-in');
    expect((await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email: user.email, password: user.password })).status).toBe(303);
    const created = await client(setup.server.baseUrl, setup.account.api_key).post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order' });
    await payByTransfer(setup.server.ctx, setup.account.merchant, created.body.payment_id);
    const page = await session.get(`/dashboard/payments/${created.body.payment_id}`);
    const [refused, health] = await withHealthCheck(
      session.post(`/dashboard/payments/${created.body.payment_id}/refund`, { _csrf: csrfOf(page), amount: zerosBetweenOnes(600_000) }),
    );
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('amount');
    expect(health).toBe(200);
    expect(await setup.server.ctx.db.selectFrom('refunds').selectAll().where('payment_id', '=', created.body.payment_id).execute()).toEqual([]);
  });
});
