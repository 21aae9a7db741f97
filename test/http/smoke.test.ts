import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('smoke', () => {
  it('creates and reads a payment', async () => {
    const account = await server.account();
    const api = client(server.baseUrl, account.api_key);
    const created = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Test' });
    expect(created.status).toBe(200);
    assertProviderSchema('payment-post-payment-2', created.body);
    const got = await api.get(`/v3/payments/${created.body.payment_id}`);
    expect(got.status).toBe(200);
    assertProviderSchema('payment-get-payment', got.body);
    expect(got.body.amount).toBe(1000);
  });

  it("keeps the API's answers out of every cache and typed as JSON, errors included; public documents keep their own caching", async () => {
    const account = await server.account();
    const api = client(server.baseUrl, account.api_key);
    const answers = [
      await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Test' }),
      await api.get('/v3/payments/zzzzzzzzzzzz'),
      await client(server.baseUrl, 'nope').get('/v3/banks'),
    ];
    for (const answer of answers) {
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const discovery = await fetch(`${server.baseUrl}/.well-known/openid-configuration`);
    expect(discovery.headers.get('cache-control')).toBe('public, max-age=300');
  });
});
