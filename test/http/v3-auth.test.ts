// Authentication of the v3 API and the account isolation it gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { call, client } from '../helpers/http.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  account = await server.account();
});
afterAll(async () => server?.close());

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
  it.each(operations)('%s %s without credentials is 401', async (method, path) => {
    const res = await call(server.baseUrl, method, path, { body: method === 'POST' ? {} : undefined });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 401, message: expect.any(String) });
  });

  it('refuses an unknown API key with 401', async () => {
    const res = await call(server.baseUrl, 'GET', '/v3/banks', { apiKey: '00000000-0000-4000-8000-000000000000' });
    expect(res.status).toBe(401);
  });

  it('refuses an API key and a bearer token together with 400', async () => {
    const res = await call(server.baseUrl, 'GET', '/v3/banks', { apiKey: account.api_key, headers: { authorization: 'Bearer abc.def.ghi' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('x-api-key');
  });

  it('refuses a malformed bearer token with 401 and no detail', async () => {
    const res = await call(server.baseUrl, 'GET', '/v3/banks', { headers: { authorization: 'Bearer not-a-token' } });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Missing or invalid credentials');
  });

  it('stops accepting a rotated key at once, and accepts the new one', async () => {
    const own = await server.account();
    expect((await client(server.baseUrl, own.api_key).get('/v3/banks')).status).toBe(200);
    const { apiKey } = await updateMerchant(server.ctx, own.receiver_id, { rotateApiKey: true });
    expect((await client(server.baseUrl, own.api_key).get('/v3/banks')).status).toBe(401);
    expect((await client(server.baseUrl, apiKey!).get('/v3/banks')).status).toBe(200);
  });

  it('sees account changes made by another process within the poll interval', async () => {
    const own = await server.account();
    const api = client(server.baseUrl, own.api_key);
    expect((await api.get('/v3/banks')).body.banks.some((b: { bank_id: string }) => b.bank_id === 'Bawdf')).toBe(true);
    // Another process changes the account: only the shared invalidation feed tells this one.
    await server.ctx.db.updateTable('merchants').set({ developer: 0 }).where('receiver_id', '=', own.receiver_id).execute();
    await server.ctx.db.insertInto('invalidations').values({ topic: 'merchant', item: String(own.receiver_id), created_at: Date.now() }).execute();
    await expect.poll(async () => (await api.get('/v3/banks')).body.banks.some((b: { bank_id: string }) => b.bank_id === 'Bawdf'), { timeout: 5000 }).toBe(false);
  });
});
