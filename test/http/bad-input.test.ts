// Malformed requests get clear 4xx answers in the contract's shape, never a 500, and write nothing.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { useTestServer } from '../helpers/server.js';

const setup = useTestServer({ BODY_LIMIT: String(64 * 1024) });

async function post(rawBody: string | undefined, contentType?: string) {
  const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
  return call(setup.server.baseUrl, 'POST', '/v3/payments', { apiKey: setup.account.api_key, rawBody, headers });
}

describe('bad requests', () => {
  it.each([
    ['malformed JSON', '{"amount": 1000,', 'application/json', 400],
    ['JSON that is an array', '[1,2,3]', 'application/json', 400],
    ['JSON that is a string', '"hello"', 'application/json', 400],
    ['a prototype-poisoning body', '{"amount":1000,"currency":"CLP","subject":"s","__proto__":{"x":1}}', 'application/json', 400],
    ['a form where JSON is expected', 'amount=1000&currency=CLP&subject=s', 'application/x-www-form-urlencoded', 415],
    ['plain text', 'amount 1000', 'text/plain', 415],
    ['no body at all', undefined, undefined, 400],
  ] as const)('%s → %s', async (_d, body, type, status) => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const res = await post(body, type);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ status, message: expect.any(String) });
    // A body that cannot be read is named as such; no body at all leaves required fields missing.
    if (status === 400) expect(res.body.errors[0].field).toBe(body === undefined ? 'amount' : 'body');
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
  });

  it('answers a URL with a broken escape in the service error shape', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/payments/%E0%A4%A', { apiKey: setup.account.api_key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, message: expect.stringContaining('Malformed URL') });
  });

  it('names the body when it is not an object', async () => {
    const res = await post('[1]', 'application/json');
    expect(res.body.errors[0].field).toBe('body');
  });

  it('refuses an oversized body with 413', async () => {
    const res = await post(JSON.stringify({ amount: 1000, currency: 'CLP', subject: 's', custom: 'x'.repeat(100 * 1024) }), 'application/json');
    expect(res.status).toBe(413);
    expect(res.body.status).toBe(413);
  });

  it('answers unknown routes with 404 in the same shape', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/nothing-here', { apiKey: setup.account.api_key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, message: expect.any(String) });
  });

  it('refuses payment ids longer than the contract allows', async () => {
    const res = await call(setup.server.baseUrl, 'GET', `/v3/payments/${'a'.repeat(256)}`, { apiKey: setup.account.api_key });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('id');
  });

  it('tags every answer with a request id, taking a sane one from the client', async () => {
    const given = await call(setup.server.baseUrl, 'GET', '/v3/banks', { apiKey: setup.account.api_key, headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const odd = await call(setup.server.baseUrl, 'GET', '/v3/banks', { apiKey: setup.account.api_key, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('a JSON member given twice', () => {
  it.each([
    ['a payment whose amount is given twice', '/v3/payments', '{"amount":1000,"currency":"CLP","subject":"x","amount":99999999}', 'amount'],
    ['a nested member given twice', '/v3/payments', '{"amount":1000,"currency":"CLP","subject":"x","custom":{"a":1,"a":2}}', 'custom.a'],
    ['the same name escaped differently', '/v3/payments', '{"amount":1000,"currency":"CLP","subject":"x","\\u0073ubject":"y"}', 'subject'],
  ])('%s is refused naming it, nothing written', async (_d, path, rawBody, field) => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const res = await call(setup.server.baseUrl, 'POST', path, { apiKey: setup.account.api_key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, errors: [{ field, message: 'must be given once' }] });
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
  });

  it('a refund whose amount is given twice is refused, nothing refunded', async () => {
    const refunding = await setup.server.account({ features: { refunds: true } });
    const created = await call(setup.server.baseUrl, 'POST', '/v3/payments', {
      apiKey: refunding.api_key,
      body: { amount: 5000, currency: 'CLP', subject: 'Refund twice' },
    });
    await payByTransfer(setup.server.ctx, refunding.merchant, created.body.payment_id);
    const before = await countRows(setup.server.ctx.db, 'refunds');
    const res = await call(setup.server.baseUrl, 'POST', `/v3/payments/${created.body.payment_id}/refunds`, {
      apiKey: refunding.api_key,
      rawBody: '{"amount":-100,"amount":4000}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'amount', message: 'must be given once' }]);
    expect(await countRows(setup.server.ctx.db, 'refunds')).toBe(before);
  });

  it('on v1 automatic payments and v2 JSON too', async () => {
    const subscription = await call(setup.server.baseUrl, 'POST', '/v1/automatic-payment/subscription', {
      apiKey: setup.account.api_key,
      rawBody: '{"a":1,"a":2}',
      headers: { 'content-type': 'application/json' },
    });
    expect(subscription.status).toBe(400);
    expect(subscription.body.errors).toEqual([{ field: 'a', message: 'must be given once' }]);
    const v2 = await call(setup.server.baseUrl, 'POST', '/2.0/payments/x/refunds', {
      apiKey: setup.account.api_key,
      rawBody: '{"amount":1,"amount":2}',
      headers: { 'content-type': 'application/json' },
    });
    expect(v2.status).toBe(400);
    expect(v2.body.errors).toEqual([{ field: 'amount', message: 'must be given once' }]);
  });
});
