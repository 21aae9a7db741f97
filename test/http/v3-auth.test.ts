// Authentication of the v3 API and the account isolation it gives.
import { describe, expect, it } from 'vitest';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { call, client } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const setup = useTestServer();

const operations: [string, string][] = [
  ['GET', '/v3/banks'],
  ['POST', '/v3/payments'],
  ['GET', '/v3/payments/aaaaaaaaaaaa'],
  ['DELETE', '/v3/payments/aaaaaaaaaaaa'],
  ['POST', '/v3/payments/aaaaaaaaaaaa/confirm'],
  ['POST', '/v3/payments/aaaaaaaaaaaa/refunds'],
  ['GET', '/v3/predict'],
  ['POST', '/v3/receivers'],
  ['GET', '/v3/merchants/123456/paymentMethods'],
];

describe('v3 authentication', () => {
  it.each(operations)('%s %s without credentials is 401 with a bearer challenge', async (method, path) => {
    const res = await call(setup.server.baseUrl, method, path, { body: method === 'POST' ? {} : undefined });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 401, message: expect.any(String) });
    // RFC 6750 3.1: no error code when the request had no token.
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quipu"');
  });

  it('refuses an unknown API key with 401 and the bearer challenge', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/banks', { apiKey: '00000000-0000-4000-8000-000000000000' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quipu"');
  });

  it.each([
    ['a malformed token', 'Bearer not-a-token'],
    ['an empty token', 'Bearer '],
    ['a token with a broken signature', 'Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.AAAA'],
  ])('answers %s with invalid_token and no detail of the failed check', async (_name, authorization) => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/banks', { headers: { authorization } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quipu", error="invalid_token"');
    expect(res.body).toEqual({ status: 401, message: 'Invalid or expired access token: get a new one from POST /oauth2/token' });
  });

  it('answers another scheme in Authorization as a request without credentials', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/banks', { headers: { authorization: 'Basic YTpi' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quipu"');
  });

  it('refuses an API key and a bearer token together with 400', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/banks', { apiKey: setup.account.api_key, headers: { authorization: 'Bearer abc.def.ghi' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('x-api-key');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('stops accepting a rotated key at once, and accepts the new one', async () => {
    const own = await setup.server.account();
    expect((await client(setup.server.baseUrl, own.api_key).get('/v3/banks')).status).toBe(200);
    const { apiKey } = await updateMerchant(setup.server.ctx, own.receiver_id, { rotateApiKey: true });
    expect((await client(setup.server.baseUrl, own.api_key).get('/v3/banks')).status).toBe(401);
    expect((await client(setup.server.baseUrl, apiKey!).get('/v3/banks')).status).toBe(200);
  });

  it('sees account changes made by another process within the poll interval', async () => {
    const own = await setup.server.account();
    const api = client(setup.server.baseUrl, own.api_key);
    expect((await api.get('/v3/banks')).body.banks.some((b: { bank_id: string }) => b.bank_id === 'Bawdf')).toBe(true);
    // Another process changes the account: only the shared invalidation feed tells this one.
    await setup.server.ctx.db.updateTable('merchants').set({ developer: 0 }).where('receiver_id', '=', own.receiver_id).execute();
    await setup.server.ctx.db
      .insertInto('invalidations')
      .values({ topic: 'merchant', item: String(own.receiver_id), created_at: Date.now() })
      .execute();
    await expect
      .poll(async () => (await api.get('/v3/banks')).body.banks.some((b: { bank_id: string }) => b.bank_id === 'Bawdf'), { timeout: 5000 })
      .toBe(false);
  });
});
