// API_KEYS_RETIRED=true: the contract's announced retirement of API keys. x-api-key is refused on
// every authenticated endpoint with 401 and a message naming what to send instead; bearer tokens
// work everywhere the key used to.
import { beforeAll, describe, expect, it } from 'vitest';
import { createPayment } from '../../src/app/create-payment.js';
import { call } from '../helpers/http.js';
import { clientCredentialsToken } from '../helpers/oauth.js';
import { countRows } from '../helpers/payments.js';
import { v2Client } from '../helpers/v2-clients.js';
import { useTestServer } from '../helpers/server.js';

let paymentId: string;
let token: string;

const setup = useTestServer({ API_KEYS_RETIRED: 'true' });
beforeAll(async () => {
  paymentId = (await createPayment(setup.server.ctx, setup.account.merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'Retired keys' })).paymentId;
  token = await clientCredentialsToken(setup.server, setup.account);
});

const endpoints: [string, string][] = [
  ['GET', '/v3/banks'],
  ['GET', '/v3/payments/PAYMENT'],
  ['POST', '/v3/payments'],
  ['GET', '/2.0/banks'],
  ['GET', '/2.0/payments/PAYMENT'],
  ['GET', '/sandbox/clock'],
  ['POST', '/sandbox/institutions/Bawdf/users/11111111-1/credential-change'],
];

describe('API key retirement', () => {
  it.each(endpoints)('refuses x-api-key on %s %s with 401 and says to use a bearer token', async (method, path) => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const res = await call(setup.server.baseUrl, method, path.replace('PAYMENT', paymentId), {
      apiKey: setup.account.api_key,
      body: method === 'POST' && path === '/v3/payments' ? { amount: 1000, currency: 'CLP', subject: 'x' } : undefined,
    });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/API keys are retired.*Bearer/);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
  });

  it.each(endpoints)('accepts a bearer token on %s %s', async (method, path) => {
    const res = await call(setup.server.baseUrl, method, path.replace('PAYMENT', paymentId), {
      headers: { authorization: `Bearer ${token}` },
      body: method === 'POST' && path === '/v3/payments' ? { amount: 1000, currency: 'CLP', subject: 'x' } : undefined,
    });
    expect(res.status).toBe(200);
  });

  it('refuses v2 requests signed with the receiver secret', async () => {
    const signed = v2Client('php', setup.account, {
      networkUrl: setup.server.baseUrl,
      signedBase: `${setup.server.config.publicBaseUrl}/api/2.0`,
      prefix: '/api/2.0',
    });
    const res = await signed.request('GET', `/payments/${paymentId}`);
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/retired.*Bearer/);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quipu"');
  });

  it('still refuses both credentials at once with 400', async () => {
    const res = await call(setup.server.baseUrl, 'GET', '/v3/banks', { apiKey: setup.account.api_key, headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(400);
  });
});
