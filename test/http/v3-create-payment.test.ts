// POST /v3/payments: every field rule of the contract, each bad value answered with a 400 that
// names the field and writes nothing; and a full payment read back with every field typed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAttempt } from '../../src/app/start-attempt.js';
import { client } from '../helpers/http.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { countRows } from '../helpers/payments.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let dev: TestAccount;
let production: TestAccount;
let contracts: TestAccount;
let psp: TestAccount;
let child: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  dev = await server.account({ notifyUrl: 'https://merchant.example/default-notify', notifyApiVersion: '1.3' });
  production = await server.account({ developer: false });
  contracts = await server.account({ features: { contractUrl: true } });
  psp = await server.account({ features: { psp: true } });
  const integrator = await server.account({ features: { integrator: true } });
  child = await server.account({ parentReceiverId: integrator.receiver_id });
});
afterAll(async () => server?.close());

const valid = { amount: 1000, currency: 'CLP', subject: 'Order 42' };
const long = (n: number) => 'x'.repeat(n);
const future = new Date(Date.now() + 7 * 24 * 3_600_000).toISOString();
const past = new Date(Date.now() - 3_600_000).toISOString();

type Case = [description: string, body: Record<string, unknown>, fields: string[], account?: () => TestAccount];

const badRequests: Case[] = [
  ['missing amount', { currency: 'CLP', subject: 's' }, ['amount']],
  ['amount as text', { ...valid, amount: '1000' }, ['amount']],
  ['zero amount', { ...valid, amount: 0 }, ['amount']],
  ['negative amount', { ...valid, amount: -5 }, ['amount']],
  ['CLP with decimals', { ...valid, amount: 10.5 }, ['amount']],
  ['USD with three decimals', { ...valid, currency: 'USD', amount: 1.234 }, ['amount']],
  ['CLF with five decimals', { ...valid, currency: 'CLF', amount: 1.23456 }, ['amount']],
  ['absurdly large amount', { ...valid, amount: 1e21 }, ['amount']],
  ['missing currency', { amount: 1000, subject: 's' }, ['currency']],
  ['unknown currency', { ...valid, currency: 'XYZ' }, ['currency']],
  ['lower-case currency', { ...valid, currency: 'clp' }, ['currency']],
  ['currency not text', { ...valid, currency: 152 }, ['currency']],
  ['missing subject', { amount: 1000, currency: 'CLP' }, ['subject']],
  ['subject over 255', { ...valid, subject: long(256) }, ['subject']],
  ['transaction_id over 255', { ...valid, transaction_id: long(256) }, ['transaction_id']],
  ['body over 5120', { ...valid, body: long(5121) }, ['body']],
  ['bank_id over 5', { ...valid, bank_id: 'ABCDEF' }, ['bank_id']],
  ['unknown bank_id', { ...valid, bank_id: 'Zzzzz' }, ['bank_id']],
  ['test bank for a production account', { ...valid, bank_id: 'Bawdf' }, ['bank_id'], () => production],
  ["below the bank's minimum", { ...valid, amount: 500, bank_id: 'SDdGj' }, ['amount']],
  ['script return_url', { ...valid, return_url: 'javascript:alert(1)' }, ['return_url']],
  ['relative cancel_url', { ...valid, cancel_url: '/cancel' }, ['cancel_url']],
  ['return_url over 1024', { ...valid, return_url: `https://a.example/${long(1010)}` }, ['return_url']],
  ['notify_url not http', { ...valid, notify_url: 'ftp://merchant.example/n' }, ['notify_url']],
  [
    'contract_url for an account not enabled',
    { ...valid, contract_url: 'https://m.example/c.pdf', fixed_payer_personal_identifier: '11.111.111-1' },
    ['contract_url'],
  ],
  [
    'contract_url without fixed_payer_personal_identifier',
    { ...valid, contract_url: 'https://m.example/c.pdf' },
    ['fixed_payer_personal_identifier'],
    () => contracts,
  ],
  ['unsupported notify_api_version', { ...valid, notify_api_version: '2.0' }, ['notify_api_version']],
  ['expires_date not a date', { ...valid, expires_date: 'tomorrow' }, ['expires_date']],
  ['expires_date without zone', { ...valid, expires_date: '2030-01-01T10:00:00' }, ['expires_date']],
  ['send_email without payer', { ...valid, send_email: true }, ['payer_name', 'payer_email']],
  ['send_email not boolean', { ...valid, send_email: 'yes' }, ['send_email']],
  ['payer_email malformed', { ...valid, payer_email: 'not-an-email' }, ['payer_email']],
  ['payer_name over 255', { ...valid, payer_name: long(256) }, ['payer_name']],
  ['responsible user without permission', { ...valid, responsible_user_email: 'stranger@example.com' }, ['responsible_user_email']],
  ['fixed_payer_personal_identifier over 255', { ...valid, fixed_payer_personal_identifier: long(256) }, ['fixed_payer_personal_identifier']],
  ['integrator_fee without an integrator', { ...valid, integrator_fee: '10' }, ['integrator_fee']],
  ['integrator_fee over 16', { ...valid, integrator_fee: '12345678901234567' }, ['integrator_fee'], () => child],
  ['integrator_fee with decimals in CLP', { ...valid, integrator_fee: '10.5' }, ['integrator_fee'], () => child],
  ['integrator_fee above the amount', { ...valid, integrator_fee: '1001' }, ['integrator_fee'], () => child],
  ['unknown collect_account_uuid', { ...valid, collect_account_uuid: 'nope' }, ['collect_account_uuid']],
  ['confirm_timeout_date in the past', { ...valid, confirm_timeout_date: past }, ['confirm_timeout_date']],
  ['mandatory_payment_method not offered', { ...valid, mandatory_payment_method: 'CARD' }, ['mandatory_payment_method']],
  ['PSP account without psp name', valid, ['psp_client_merchant_name'], () => psp],
  ['psp name shorter than 3', { ...valid, psp_client_merchant_name: 'ab' }, ['psp_client_merchant_name'], () => psp],
  ['psp chain over 255 in all', { ...valid, psp_client_merchant_name: `PSP->${long(251)}` }, ['psp_client_merchant_name'], () => psp],
  ['amount below a ten-millionth, in exponent form', { ...valid, amount: 1e-7 }, ['amount']],
  ...['ARS', 'PEN', 'MXN', 'EUR', 'BOB', 'COP'].map((currency): Case => [`${currency} with three decimals`, { ...valid, currency, amount: 1.234 }, ['amount']]),
  ...['cancel_url', 'picture_url', 'notify_url'].map((field): Case => [
    `${field} over 1024`,
    { ...valid, [field]: `https://a.example/${long(1010)}` },
    [field],
  ]),
  [
    'contract_url over 1024',
    { ...valid, contract_url: `https://a.example/${long(1010)}`, fixed_payer_personal_identifier: '11.111.111-1' },
    ['contract_url'],
    () => contracts,
  ],
  ...['payer_email', 'responsible_user_email'].map((field): Case => [`${field} over 255`, { ...valid, [field]: `${long(250)}@example.com` }, [field]]),
  ...['collect_account_uuid', 'mandatory_payment_method'].map((field): Case => [`${field} over 255`, { ...valid, [field]: long(256) }, [field]]),
  ['psp name over 255', { ...valid, psp_client_merchant_name: long(256) }, ['psp_client_merchant_name'], () => psp],
  ['responsible_user_email malformed', { ...valid, responsible_user_email: 'owner-at-example' }, ['responsible_user_email']],
  ['confirm_timeout_date not a date', { ...valid, confirm_timeout_date: 'soon' }, ['confirm_timeout_date']],
  ['send_reminders not boolean', { ...valid, send_email: true, payer_name: 'Ana', payer_email: 'ana@example.com', send_reminders: 'yes' }, ['send_reminders']],
  ['integrator_fee not a number', { ...valid, integrator_fee: 'ten' }, ['integrator_fee'], () => child],
  ['negative integrator_fee', { ...valid, integrator_fee: '-1' }, ['integrator_fee'], () => child],
  ['transaction_id as a number', { ...valid, transaction_id: 42 }, ['transaction_id']],
  ['custom as a number', { ...valid, custom: 42 }, ['custom']],
  ['a bad field next to an unknown one, which is ignored', { ...valid, amount: 'ten', colour: 'blue' }, ['amount']],
  ['several bad fields at once', { amount: 'x', currency: 'XYZ', subject: long(300) }, ['amount', 'currency', 'subject']],
  [
    'schema and account rules report together',
    { ...valid, subject: long(300), send_email: true, mandatory_payment_method: 'CARD' },
    ['subject', 'payer_name', 'payer_email', 'mandatory_payment_method'],
  ],
  [
    'context rules report together',
    { ...valid, send_email: true, integrator_fee: '1', mandatory_payment_method: 'CARD' },
    ['payer_name', 'payer_email', 'integrator_fee', 'mandatory_payment_method'],
  ],
];

describe('POST /v3/payments refuses bad input', () => {
  it.each(badRequests)('%s', async (_description, body, fields, account) => {
    const who = account?.() ?? dev;
    const before = await countRows(server.ctx.db, 'payments');
    const res = await client(server.baseUrl, who.api_key).post('/v3/payments', body);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(400);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([...fields].sort());
    for (const e of res.body.errors) expect(e.message).toEqual(expect.any(String));
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });
});

describe('POST /v3/payments says what is wrong with an amount', () => {
  it.each([
    ['CLP', 1e-7, 'must not have decimals in this currency'],
    ['USD', 1e-7, 'must have at most 2 decimals in this currency'],
    ['CLF', 0.00001, 'must have at most 4 decimals in this currency'],
    ['CLP', 1e21, 'is out of range: amounts must be below 100000000000'],
    ['USD', 1.5e22, 'is out of range: amounts must be below 100000000000'],
    ['CLP', 100000000000, 'is out of range: amounts must be below 100000000000'],
    ['CLP', -1000, 'must be greater than zero'],
  ] as const)('%s %s', async (currency, amount, message) => {
    const before = await countRows(server.ctx.db, 'payments');
    const res = await client(server.baseUrl, dev.api_key).post('/v3/payments', { ...valid, currency, amount });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'amount', message }]);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });
});

describe('POST /v3/payments creates payments', () => {
  it('returns the ids and URLs of the provider, built from the public base URL', async () => {
    const res = await client(server.baseUrl, dev.api_key).post('/v3/payments', valid);
    expect(res.status).toBe(200);
    assertProviderSchema('payment-post-payment-2', res.body);
    const id = res.body.payment_id;
    expect(id).toMatch(/^[a-z0-9]{12}$/);
    expect(res.body).toEqual({
      payment_id: id,
      payment_url: `${server.config.publicBaseUrl}/payment/info/${id}`,
      simplified_transfer_url: `${server.config.publicBaseUrl}/payment/simplified/${id}`,
      transfer_url: `${server.config.publicBaseUrl}/payment/manual/${id}`,
      app_url: `khipu:///pos/${id}`,
      ready_for_terminal: false,
    });
  });

  it('builds the URLs from PUBLIC_BASE_URL, not from the address the request reached', async () => {
    const proxied = await startTestServer({ PUBLIC_BASE_URL: 'https://pay.example.com' });
    try {
      const account = await proxied.account();
      const res = await client(proxied.baseUrl, account.api_key).post('/v3/payments', valid);
      expect(res.body.payment_url).toBe(`https://pay.example.com/payment/info/${res.body.payment_id}`);
      expect(res.body.transfer_url).toBe(`https://pay.example.com/payment/manual/${res.body.payment_id}`);
      expect((await client(proxied.baseUrl, account.api_key).get(`/v3/payments/${res.body.payment_id}`)).body.simplified_transfer_url).toBe(
        `https://pay.example.com/payment/simplified/${res.body.payment_id}`,
      );
    } finally {
      await proxied.close();
    }
  });

  it('keeps every field and answers GET with every field of the contract, typed', async () => {
    const api = client(server.baseUrl, dev.api_key);
    const body = {
      amount: 12345,
      currency: 'CLP',
      subject: 'Full order <42>',
      transaction_id: 'INV-0042',
      custom: '<xml><cart items="3"/></xml>',
      body: 'Three items',
      bank_id: 'Bawdf',
      return_url: 'myapp://payments/return',
      cancel_url: 'https://merchant.example/cancel',
      picture_url: 'https://merchant.example/p.png',
      notify_url: 'https://merchant.example/notify',
      notify_api_version: '3.0',
      expires_date: future,
      send_email: true,
      payer_name: 'Ana Pagadora',
      payer_email: 'ana@example.com',
      send_reminders: true,
      responsible_user_email: 'OWNER@example.com',
      fixed_payer_personal_identifier: '11.111.111-1',
      confirm_timeout_date: future,
      mandatory_payment_method: 'simplified_transfer',
      collect_account_uuid: dev.merchant.collectAccounts[0],
    };
    const created = await api.post('/v3/payments', body);
    expect(created.status).toBe(200);
    expect(created.body.ready_for_terminal).toBe(true);
    const got = await api.get(`/v3/payments/${created.body.payment_id}`);
    expect(got.status).toBe(200);
    assertProviderSchema('payment-get-payment', got.body);
    expect(got.body).toMatchObject({
      payment_id: created.body.payment_id,
      receiver_id: dev.receiver_id,
      subject: body.subject,
      amount: 12345,
      currency: 'CLP',
      status: 'pending',
      status_detail: 'pending',
      body: body.body,
      custom: body.custom,
      transaction_id: body.transaction_id,
      picture_url: body.picture_url,
      return_url: body.return_url,
      cancel_url: body.cancel_url,
      notify_url: body.notify_url,
      notify_api_version: '3.0',
      expires_date: body.expires_date,
      attachment_urls: [],
      bank: 'DemoBank',
      bank_id: 'Bawdf',
      payer_name: body.payer_name,
      payer_email: body.payer_email,
      personal_identifier: '',
      bank_account_number: '',
      out_of_date_conciliation: false,
      responsible_user_email: body.responsible_user_email,
      send_email: true,
      send_reminders: true,
      payment_method: 'not_available',
      funds_source: 'not-available',
      receipt_url: '',
      discount: 0,
    });
    expect(got.body.notification_token).toMatch(/^[0-9a-f]{64}$/);
    expect(Number.isNaN(Date.parse(got.body.conciliation_date))).toBe(false);
  });

  it("fills the account's notification defaults and a default expiry", async () => {
    const api = client(server.baseUrl, dev.api_key);
    const created = await api.post('/v3/payments', valid);
    const got = await api.get(`/v3/payments/${created.body.payment_id}`);
    expect(got.body.notify_url).toBe('https://merchant.example/default-notify');
    expect(got.body.notify_api_version).toBe('1.3');
    const ttl = Date.parse(got.body.expires_date) - server.ctx.clock.now().getTime();
    expect(ttl).toBeGreaterThan(23 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(24 * 3_600_000);
  });

  it('creates a payment born expired (expires_date in the past): read and deleted as any other, never paid', async () => {
    const api = client(server.baseUrl, dev.api_key);
    const created = await api.post('/v3/payments', { ...valid, expires_date: past });
    expect(created.status).toBe(200);
    const id = created.body.payment_id;
    expect((await api.get(`/v3/payments/${id}`)).body).toMatchObject({ status: 'pending', status_detail: 'pending', expires_date: past });
    await expect(startAttempt(server.ctx, id, { bankId: 'Bawdf', payerEmail: 'payer@example.com' })).rejects.toThrow('The payment cannot be paid: expired');
    expect((await api.delete(`/v3/payments/${id}`)).status).toBe(200);
  });

  it('treats null and empty optional fields as absent', async () => {
    const res = await client(server.baseUrl, dev.api_key).post('/v3/payments', { ...valid, transaction_id: null, bank_id: '', expires_date: null });
    expect(res.status).toBe(200);
  });

  it('accepts the decimals each currency allows, exactly', async () => {
    const api = client(server.baseUrl, dev.api_key);
    for (const [currency, amount] of [
      ['CLF', 1.2345],
      ['USD', 0.1],
      ['EUR', 19.99],
      ['CLP', 100.0],
    ] as const) {
      const created = await api.post('/v3/payments', { amount, currency, subject: currency });
      expect(created.status, currency).toBe(200);
      expect((await api.get(`/v3/payments/${created.body.payment_id}`)).body.amount).toBe(amount);
    }
  });

  it('accepts contract_url, PSP names and integrator fees for the accounts that may use them', async () => {
    const contract = await client(server.baseUrl, contracts.api_key).post('/v3/payments', {
      ...valid,
      contract_url: 'https://m.example/c.pdf',
      fixed_payer_personal_identifier: '11.111.111-1',
    });
    expect(contract.status).toBe(200);
    const chained = await client(server.baseUrl, psp.api_key).post('/v3/payments', { ...valid, psp_client_merchant_name: 'PSP 1->PSP 2->Client Name' });
    expect(chained.status).toBe(200);
    const shortest = await client(server.baseUrl, psp.api_key).post('/v3/payments', { ...valid, psp_client_merchant_name: 'PSP->abc' });
    expect(shortest.status).toBe(200);
    const fee = await client(server.baseUrl, child.api_key).post('/v3/payments', { ...valid, integrator_fee: '100' });
    expect(fee.status).toBe(200);
  });
});
