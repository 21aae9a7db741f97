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
});
