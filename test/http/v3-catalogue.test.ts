// Banks, payment methods, predictions and receivers through the v3 API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECEIVER_REQUEST_FIELDS } from '../../src/domain/receiver-request.js';
import { call, client } from '../helpers/http.js';
import { basicAuth, formPost } from '../helpers/oauth.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { validReceiver } from '../helpers/receivers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let dev: TestAccount;
let production: TestAccount;
let integrator: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  dev = await server.account({ paymentMethods: ['SIMPLIFIED_TRANSFER'] });
  production = await server.account({ developer: false });
  integrator = await server.account({ features: { integrator: true } });
});
afterAll(async () => server?.close());

describe('GET /v3/banks', () => {
  it('lists the test bank for developer-mode accounts only', async () => {
    const devBanks = await client(server.baseUrl, dev.api_key).get('/v3/banks');
    expect(devBanks.status).toBe(200);
    assertProviderSchema('bank-get-banks', devBanks.body);
    const demo = devBanks.body.banks.find((b: { bank_id: string }) => b.bank_id === 'Bawdf');
    expect(demo).toEqual({
      bank_id: 'Bawdf',
      name: 'DemoBank',
      message: 'Este es un banco de pruebas. Las transacciones no son reales.',
      min_amount: 200,
      type: 'Persona',
      parent: '',
      logo_url: `${server.config.publicBaseUrl}/assets/banks/Bawdf.svg`,
    });
    const prodBanks = await client(server.baseUrl, production.api_key).get('/v3/banks');
    assertProviderSchema('bank-get-banks', prodBanks.body);
    expect(prodBanks.body.banks.some((b: { bank_id: string }) => b.bank_id === 'Bawdf')).toBe(false);
  });

  it('names parents that exist, and serves every logo', async () => {
    const { body } = await client(server.baseUrl, production.api_key).get('/v3/banks');
    const ids = new Set(body.banks.map((b: { bank_id: string }) => b.bank_id));
    for (const bank of body.banks) {
      if (bank.parent) expect(ids.has(bank.parent)).toBe(true);
      const logo = await fetch(bank.logo_url);
      expect(logo.status).toBe(200);
      expect(logo.headers.get('content-type')).toContain('image/svg+xml');
    }
  });
});

describe('GET /v3/merchants/{id}/paymentMethods', () => {
  it("lists the account's own methods", async () => {
    const res = await client(server.baseUrl, dev.api_key).get(`/v3/merchants/${dev.receiver_id}/paymentMethods`);
    expect(res.status).toBe(200);
    assertProviderSchema('merchant-get-payment-methods', res.body);
    expect(res.body.paymentMethods.map((m: { id: string }) => m.id)).toEqual(['SIMPLIFIED_TRANSFER']);
    expect((await fetch(res.body.paymentMethods[0].logo_url)).status).toBe(200);
  });

  it('hides other accounts (404) and refuses ids that are not numbers (400)', async () => {
    const api = client(server.baseUrl, dev.api_key);
    expect((await api.get(`/v3/merchants/${production.receiver_id}/paymentMethods`)).status).toBe(404);
    expect((await api.get('/v3/merchants/999999999/paymentMethods')).status).toBe(404);
    const bad = await api.get('/v3/merchants/abc/paymentMethods');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('id');
  });

  it('only offers mandatory_payment_method values from this list', async () => {
    const api = client(server.baseUrl, dev.api_key);
    const before = await countRows(server.ctx.db, 'payments');
    // A method that exists, but not for this account.
    const res = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 's', mandatory_payment_method: 'REGULAR_TRANSFER' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'mandatory_payment_method', message: expect.stringContaining('SIMPLIFIED_TRANSFER') }]);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });
});

describe('GET /v3/predict', () => {
  const query = (q: Record<string, string>) => `/v3/predict?${new URLSearchParams(q)}`;
  const base = { payer_email: 'payer@example.com', bank_id: 'dfFbF', amount: '1000', currency: 'CLP' };

  it('answers from the bank limits and whether the payer paid this account before', async () => {
    const api = client(server.baseUrl, production.api_key);
    const ok = await api.get(query(base));
    expect(ok.status).toBe(200);
    assertProviderSchema('predict-get-predict', ok.body);
    expect(ok.body).toMatchObject({ result: 'ok', max_amount: 5000000, new_destinatary_max_amount: 250000 });
    expect((await api.get(query({ ...base, amount: '300000' }))).body.result).toBe('new_destinatary_amount_exceeded');
    expect((await api.get(query({ ...base, amount: '6000000' }))).body.result).toBe('max_amount_exceeded');
    expect((await api.get(query({ ...base, currency: 'USD' }))).body.result).toBe('not_available_account');

    const created = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'first' });
    await payByTransfer(server.ctx, production.merchant, created.body.payment_id, { bankId: 'dfFbF', payerEmail: base.payer_email });
    const coolDown = await api.get(query({ ...base, amount: '300000' }));
    expect(coolDown.body.result).toBe('new_destinatary_cool_down');
    expect(Date.parse(coolDown.body.cool_down_date)).toBeGreaterThan(server.ctx.clock.now().getTime());
  });

  // Values only Quipu's rules doubted are answered (test/http/doubtful-queries.test.ts); the schema's rules stand.
  it('names each parameter missing or past its length', async () => {
    const api = client(server.baseUrl, production.api_key);
    const missing = await api.get('/v3/predict');
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['amount', 'bank_id', 'currency', 'payer_email']);
    const long = await api.get(query({ ...base, payer_email: `${'x'.repeat(250)}@example.com` }));
    expect(long.body.errors.map((e: { field: string }) => e.field)).toEqual(['payer_email']);
  });

  it.each([
    ['a non-numeric amount', query({ ...base, amount: 'abc' }), 'amount'],
    ['an amount in exponent form', query({ ...base, amount: '1e3' }), 'amount'],
    ['an amount over 255 characters', query({ ...base, amount: '1'.repeat(256) }), 'amount'],
    ['a bank_id over 255 characters', query({ ...base, bank_id: 'B'.repeat(256) }), 'bank_id'],
    ['a currency over 255 characters', query({ ...base, currency: 'C'.repeat(256) }), 'currency'],
    ['a repeated amount', `${query(base)}&amount=2000`, 'amount'],
    ['a repeated payer_email', `${query(base)}&payer_email=other@example.com`, 'payer_email'],
  ])('refuses %s, naming it', async (_d, path, field) => {
    const res = await client(server.baseUrl, production.api_key).get(path);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });
});

describe('POST /v3/receivers', () => {
  const receiver = validReceiver;

  it('is only for accounts with the integrator feature', async () => {
    const before = await countRows(server.ctx.db, 'merchants');
    const res = await client(server.baseUrl, dev.api_key).post('/v3/receivers', receiver);
    expect(res.status).toBe(403);
    expect(await countRows(server.ctx.db, 'merchants')).toBe(before);
  });

  it('opens a child account whose credentials work at once', async () => {
    const res = await client(server.baseUrl, integrator.api_key).post('/v3/receivers', receiver);
    expect(res.status).toBe(200);
    assertProviderSchema('receiver-post-receiver-2', res.body);
    expect(res.body.receiver_id).toMatch(/^\d{6}$/);
    expect(res.body.secret).toMatch(/^[0-9a-f]{40}$/);
    const child = await server.ctx.merchants.byReceiverId(Number(res.body.receiver_id));
    expect(child).toMatchObject({
      secret: res.body.secret,
      parentReceiverId: integrator.receiver_id,
      developer: true,
      notifyUrl: receiver.notify_url,
      users: [receiver.admin_email],
    });
    // The integrator sees its receiver's methods; the child may be charged integrator fees.
    const methods = await client(server.baseUrl, integrator.api_key).get(`/v3/merchants/${res.body.receiver_id}/paymentMethods`);
    expect(methods.status).toBe(200);
  });

  it("gives credentials that get a token at once, whose bearer lists banks and creates the child's payments", async () => {
    const created = await client(server.baseUrl, integrator.api_key).post('/v3/receivers', receiver);
    expect(created.status).toBe(200);
    // The answer holds no API key (the contract's receiver_id and secret only): the child uses OAuth.
    expect(Object.keys(created.body).sort()).toEqual(['receiver_id', 'secret']);
    const childId = Number(created.body.receiver_id);
    const token = await formPost(
      server.baseUrl,
      '/oauth2/token',
      { grant_type: 'client_credentials' },
      basicAuth({ receiver_id: childId, secret: created.body.secret }),
    );
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ access_token: expect.any(String), token_type: 'bearer' });
    const bearer = { authorization: `Bearer ${token.body.access_token}` };

    const banks = await call(server.baseUrl, 'GET', '/v3/banks', { headers: bearer });
    expect(banks.status).toBe(200);
    expect(banks.body.banks.some((b: { bank_id: string }) => b.bank_id === 'Bawdf')).toBe(true);
    const before = await countRows(server.ctx.db, 'payments');
    const payment = await call(server.baseUrl, 'POST', '/v3/payments', { headers: bearer, body: { amount: 1000, currency: 'CLP', subject: 'First sale' } });
    expect(payment.status).toBe(200);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before + 1);
    const got = await call(server.baseUrl, 'GET', `/v3/payments/${payment.body.payment_id}`, { headers: bearer });
    expect(got.body).toMatchObject({ receiver_id: childId, notify_url: receiver.notify_url });
    // The secret is the child's own: the integrator's receiver id with it gets nothing.
    const mixed = await formPost(
      server.baseUrl,
      '/oauth2/token',
      { grant_type: 'client_credentials' },
      basicAuth({ receiver_id: integrator.receiver_id, secret: created.body.secret }),
    );
    expect(mixed.status).toBe(401);
  });

  it('names a private notify_url of a production integrator together with the other bad fields', async () => {
    const productionIntegrator = await server.account({ developer: false, features: { integrator: true } });
    const api = client(server.baseUrl, productionIntegrator.api_key);
    const before = await countRows(server.ctx.db, 'merchants');
    const res = await api.post('/v3/receivers', { ...receiver, notify_url: 'http://10.0.0.1/n', country_code: 'XX' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['country_code', 'notify_url']);
    expect(res.body.errors.find((e: { field: string }) => e.field === 'notify_url').message).toMatch(/private address/);
    expect(await countRows(server.ctx.db, 'merchants')).toBe(before);
    // A developer-mode integrator may point its receivers at its own network.
    expect((await client(server.baseUrl, integrator.api_key).post('/v3/receivers', { ...receiver, notify_url: 'http://10.0.0.1/n' })).status).toBe(200);
  });

  const bad: [string, Record<string, unknown>, string[]][] = [
    ['missing required fields', { admin_first_name: 'Ana' }, Object.keys(receiver).filter((k) => !['admin_first_name', 'notify_url'].includes(k))],
    ['country code not ISO', { ...receiver, country_code: 'XX' }, ['country_code']],
    ['country code too long', { ...receiver, country_code: 'CHL' }, ['country_code']],
    ['short business identifier', { ...receiver, business_identifier: '1234567' }, ['business_identifier']],
    ['short phone', { ...receiver, business_phone: '1234' }, ['business_phone']],
    ['long phone', { ...receiver, contact_phone: '1'.repeat(21) }, ['contact_phone']],
    ['short address', { ...receiver, business_address_line_3: 'abc' }, ['business_address_line_3']],
    ['address over 300', { ...receiver, business_address_line_1: 'a'.repeat(301) }, ['business_address_line_1']],
    ['bad emails', { ...receiver, admin_email: 'x', contact_email: 'y@' }, ['admin_email', 'contact_email']],
    ['identifier over 50', { ...receiver, bank_account_identifier: 'x'.repeat(51) }, ['bank_account_identifier']],
    ['notify_url not http', { ...receiver, notify_url: 'mailto:a@b.c' }, ['notify_url']],
    ['a bad field next to an unknown one, which is ignored', { ...receiver, country_code: 'XX', website: 'https://x' }, ['country_code']],
    ['schema and account rules together', { ...receiver, business_name: 'x'.repeat(256), country_code: 'XX' }, ['business_name', 'country_code']],
  ];
  // Every length rule of the receiver table, past each bound.
  const overLong = (kind: string, max: number) =>
    kind === 'email' ? `${'x'.repeat(max - 11)}@example.com` : kind === 'web-url' ? `https://a.example/${'x'.repeat(max)}` : 'x'.repeat(max + 1);
  for (const [field, rule] of Object.entries(RECEIVER_REQUEST_FIELDS)) {
    if (rule.maxLength !== undefined) bad.push([`${field} over ${rule.maxLength}`, { ...receiver, [field]: overLong(rule.kind, rule.maxLength) }, [field]]);
    if (rule.minLength !== undefined) bad.push([`${field} under ${rule.minLength}`, { ...receiver, [field]: 'x'.repeat(rule.minLength - 1) }, [field]]);
  }
  bad.push(
    ['a name that is not text', { ...receiver, business_name: 42 }, ['business_name']],
    ['rendition_url not a URL', { ...receiver, rendition_url: 'report' }, ['rendition_url']],
  );

  it.each(bad)('refuses %s by field and opens nothing', async (_d, body, fields) => {
    const before = await countRows(server.ctx.db, 'merchants');
    const res = await client(server.baseUrl, integrator.api_key).post('/v3/receivers', body);
    expect(res.status).toBe(400);
    expect([...new Set(res.body.errors.map((e: { field: string }) => e.field))].sort()).toEqual([...fields].sort());
    expect(await countRows(server.ctx.db, 'merchants')).toBe(before);
  });
});
