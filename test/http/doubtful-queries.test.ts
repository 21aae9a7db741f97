// Never stricter than the provider (docs/validation-rules.md), on the predict query, the OAuth
// endpoints, the v2 forms and required text sent empty: what only a rule of Quipu's own doubted is
// answered as the provider would answer it. Unknown parameters and fields are ignored and named in
// Quipu-Ignored-Fields; doubtful values are named, to a developer-mode account, in Quipu-Warnings
// (`field=message`) and in the request's log line; a production account gets the same answer
// without the warnings. What moves money keeps its refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { authorizeParams, basicAuth, decodeJwtPart, formPost, PageClient, redirectParams, registerRedirectUris } from '../helpers/oauth.js';
import { DESCRIPTOR_PATH, NEW_DESCRIPTOR } from '../helpers/operations.js';
import { countRows } from '../helpers/payments.js';
import { logLines, quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { validReceiver } from '../helpers/receivers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { newCharge } from '../helpers/subscriptions.js';
import { CLIENTS, signWith, type V2Client, v2Client } from '../helpers/v2-clients.js';
import { WARNINGS_HEADER, warningsOf } from '../helpers/warnings.js';

const IGNORED = 'quipu-ignored-fields';
const TYPOS = 'quipu-likely-typos';
const CALLBACK = 'https://client.example/callback';

let server: TestServer;
let developer: TestAccount;
let production: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  developer = await server.account({ features: { integrator: true } });
  production = await server.account({ developer: false, features: { integrator: true } });
  for (const account of [developer, production]) await registerRedirectUris(server, account, [CALLBACK]);
});
afterAll(async () => server?.close());

/** Both accounts get the same answer; only the developer-mode one hears of the doubts. */
async function bothAccounts(send: (account: TestAccount) => Promise<JsonResponse>): Promise<JsonResponse> {
  const quiet = await send(production);
  const told = await send(developer);
  expect(quiet.headers.get(WARNINGS_HEADER)).toBeNull();
  expect(quiet.status).toBe(told.status);
  return told;
}

describe('GET /v3/predict', () => {
  const base = { payer_email: 'payer@example.com', bank_id: 'dfFbF', amount: '1000', currency: 'CLP' };
  const predict = (account: TestAccount, query: Record<string, string>, extra = '') =>
    client(server.baseUrl, account.api_key).get(`/v3/predict?${new URLSearchParams(query)}${extra}`);
  const LIMITS = { max_amount: 5000000, new_destinatary_max_amount: 250000 };

  // [what, query, the answer, Quipu-Warnings]
  const DOUBTFUL: [string, Record<string, string>, Record<string, unknown>, Record<string, string>][] = [
    [
      'a payer_email that is no email: a lookup key no payer has',
      { ...base, payer_email: 'pagos at tienda' },
      { result: 'ok', ...LIMITS },
      { payer_email: 'must be an email address' },
    ],
    [
      'a bank_id that names no bank: as the provider answers a payment it cannot make, with no limits',
      { ...base, bank_id: 'Zzzzz' },
      { result: 'not_available_account', max_amount: 0, new_destinatary_max_amount: 0 },
      { bank_id: 'is not a bank available to this account' },
    ],
    [
      'a currency Quipu does not know: no bank moves it',
      { ...base, currency: 'XXX' },
      { result: 'not_available_account', ...LIMITS },
      { currency: expect.stringMatching(/^must be one of CLP, /) },
    ],
    ['decimals CLP does not have', { ...base, amount: '1000.5' }, { result: 'ok' }, { amount: 'must not have decimals in this currency' }],
    [
      'decimals past the limit, compared exactly',
      { ...base, amount: '5000000.00001' },
      { result: 'max_amount_exceeded' },
      { amount: 'must not have decimals in this currency' },
    ],
    ['a zero amount', { ...base, amount: '0' }, { result: 'ok' }, { amount: 'must be greater than zero' }],
    ['a negative amount', { ...base, amount: '-5' }, { result: 'ok' }, { amount: 'must be greater than zero' }],
    [
      'everything at once',
      { payer_email: 'nope', bank_id: 'Zzzzz', amount: '1.5', currency: 'XXX' },
      { result: 'not_available_account' },
      { payer_email: 'must be an email address', bank_id: 'is not a bank available to this account', currency: expect.any(String) },
    ],
  ];

  it.each(DOUBTFUL)('answers %s', async (_what, query, answer, warnings) => {
    const res = await bothAccounts((account) => predict(account, query));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject(answer);
    expect(warningsOf(res)).toEqual(warnings);
  });

  it('answers DemoBank as no bank of a production account, and as a bank of a developer-mode one', async () => {
    const demo = { ...base, bank_id: 'Bawdf' };
    expect((await predict(production, demo)).body).toMatchObject({ result: 'not_available_account', max_amount: 0 });
    const res = await predict(developer, demo);
    expect(res.body.result).toBe('ok');
    expect(res.headers.get(WARNINGS_HEADER)).toBeNull();
  });

  it('ignores unknown parameters, naming them (and in developer mode the one a typo likely meant)', async () => {
    const res = await predict(developer, base, '&foo=1&amuont=5');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ result: 'ok', ...LIMITS });
    expect(res.headers.get(IGNORED)).toBe('amuont, foo');
    expect(res.headers.get(TYPOS)).toBe('amuont=amount');
    const quiet = await predict(production, base, '&foo=1');
    expect(quiet.headers.get(IGNORED)).toBe('foo');
    expect(quiet.headers.get(TYPOS)).toBeNull();
  });

  it('still refuses an amount that is no number, and the schema’s own rules', async () => {
    for (const amount of ['mil', '1e3', '1,000']) {
      const res = await predict(developer, { ...base, amount });
      expect(res.status, amount).toBe(400);
      expect(res.body.errors, amount).toEqual([{ field: 'amount', message: expect.stringContaining('decimal number') }]);
    }
    expect((await predict(developer, { ...base, currency: 'C'.repeat(256) })).status).toBe(400);
  });

  it('publishes the query open', async () => {
    const doc = (await call(server.baseUrl, 'GET', '/openapi.json')).body;
    expect(doc.paths['/v3/predict'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['amount', 'bank_id', 'currency', 'payer_email']);
  });
});

describe('OAuth', () => {
  it('authorize: takes the scopes in any order and spacing, and reads an empty state and nonce as not sent', async () => {
    const before = await countRows(server.ctx.db, 'oauth_authorizations');
    const done = await new PageClient(server.baseUrl).runFlow(authorizeParams(developer, CALLBACK, { scope: ' api  openid', state: '', nonce: '' }));
    expect(done.status).toBe(303);
    const params = redirectParams(done.location);
    expect(params.code).toEqual(expect.any(String));
    expect(params).not.toHaveProperty('state');
    expect(await countRows(server.ctx.db, 'oauth_authorizations')).toBe(before + 1);
    const tokens = await formPost(
      server.baseUrl,
      '/oauth2/token',
      { grant_type: 'authorization_code', code: params.code!, redirect_uri: CALLBACK },
      basicAuth(developer),
    );
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.scope).toBe('openid api');
    expect(decodeJwtPart(tokens.body.id_token, 1)).not.toHaveProperty('nonce');
  });

  it('authorize: still refuses another set of scopes', async () => {
    for (const scope of ['openid', 'openid api admin']) {
      const res = await new PageClient(server.baseUrl).authorize(authorizeParams(developer, CALLBACK, { scope }));
      expect(redirectParams(res.location), scope).toMatchObject({ error_code: 'A002', error: 'invalid_scope' });
    }
  });

  it('token: a client credentials scope Quipu does not know is not granted, and the response says what was', async () => {
    const before = await countRows(server.ctx.db, 'oauth_tokens');
    const res = await bothAccounts((account) =>
      formPost(server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials', scope: 'api admin' }, basicAuth(account)),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.scope).toBe('api');
    expect(decodeJwtPart(res.body.access_token, 1)).toMatchObject({ scope: 'api' });
    expect(warningsOf(res)).toEqual({ scope: 'names a scope Quipu does not know: only api is granted' });
    expect(await countRows(server.ctx.db, 'oauth_tokens')).toBe(before + 2);
  });
});

describe('v2 forms', () => {
  const order = { subject: 'Order 42', currency: 'CLP', amount: '1000' };
  const v2Of = (account: TestAccount): V2Client =>
    v2Client('php', account, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });

  it('create payment: unknown fields are ignored after the signature that covers them, and named', async () => {
    const res = await v2Of(developer).request('POST', '/payments', { form: { ...order, colour: 'blue', subjet: 'x' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get(IGNORED)).toBe('colour, subjet');
    expect(res.headers.get(TYPOS)).toBe('subjet=subject');
    expect((await v2Of(developer).request('GET', `/payments/${res.body.payment_id}`)).body).toMatchObject({ subject: 'Order 42', amount: 1000 });
    const quiet = await v2Of(production).request('POST', '/payments', { form: { ...order, subjet: 'x' } });
    expect(quiet.status).toBe(200);
    expect(quiet.headers.get(IGNORED)).toBe('subjet');
    expect(quiet.headers.get(TYPOS)).toBeNull();
  });

  it('an unknown field the signature does not cover is a wrong signature, not an ignored field', async () => {
    const before = await countRows(server.ctx.db, 'payments');
    const params = Object.entries(order);
    const hash = signWith(CLIENTS.php, developer.secret, 'POST', `${server.config.publicBaseUrl}/2.0/payments`, params);
    const res = await call(server.baseUrl, 'POST', '/2.0/payments', {
      headers: { authorization: `${developer.receiver_id}:${hash}`, 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams([...params, ['colour', 'blue']]).toString(),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get(IGNORED)).toBeNull();
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });

  it('create receiver: unknown fields are ignored and named', async () => {
    const res = await v2Of(developer).request('POST', '/receivers', { form: { ...validReceiver, agent: 'x' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get(IGNORED)).toBe('agent');
  });
});

describe('a required text member sent empty', () => {
  const v3 = (account: TestAccount, path: string, body: unknown) => client(server.baseUrl, account.api_key).post(path, body);

  it('is the empty value the provider takes, named as a doubt: v3 and v2 payments', async () => {
    const res = await bothAccounts((account) => v3(account, '/v3/payments', { amount: 1000, currency: 'CLP', subject: '' }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(warningsOf(res)).toEqual({ subject: 'is empty' });
    expect((await client(server.baseUrl, developer.api_key).get(`/v3/payments/${res.body.payment_id}`)).body).toMatchObject({ subject: '' });
    const v2 = v2Client('php', developer, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });
    // The libraries send unset optional fields empty too: those stay "not given".
    const form = await v2.request('POST', '/payments', { form: { subject: '', currency: 'CLP', amount: '1000', body: '', bank_id: '' } });
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect(warningsOf(form)).toEqual({ subject: 'is empty' });
  });

  it('is the empty value in a descriptor too', async () => {
    const res = await v3(developer, DESCRIPTOR_PATH, { ...NEW_DESCRIPTOR, bank: '' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(warningsOf(res)).toEqual({ bank: 'is empty' });
  });

  it('is still missing where it is no text, or moves money', async () => {
    const before = await countRows(server.ctx.db, 'payments');
    const cases: [string, unknown, Record<string, string>][] = [
      ['/v3/payments', { amount: '', currency: 'CLP', subject: 'x' }, { amount: expect.any(String) }],
      ['/v3/payments', { amount: 1000, currency: '', subject: 'x' }, { currency: 'is required' }],
      ['/v1/automatic-payment/charge-intent', newCharge(''), { subscription_id: 'is required' }],
    ];
    for (const [path, body, errors] of cases) {
      const res = await v3(developer, path, body);
      expect(res.status, path).toBe(400);
      expect(Object.fromEntries(res.body.errors.map((e: { field: string; message: string }) => [e.field, e.message])), path).toEqual(errors);
    }
    const v2 = v2Client('php', developer, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });
    const form = await v2.request('POST', '/payments', { form: { subject: 'x', currency: 'CLP', amount: '' } });
    expect(form.status).toBe(400);
    expect(form.body.errors).toEqual([{ field: 'amount', message: 'is required' }]);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
  });
});

describe('the request log line', () => {
  const processes = withServerProcesses();

  it('names the doubts of an authorization request, which has no account to send them to', async () => {
    const { database, started } = processes;
    const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir };
    const served = await serveOnFreePort({ ...env, LOG_LEVEL: 'info', RUN_WORKER: 'false' }, started);
    const account = /receiver_id\s+(\d+)/.exec(await served.waitFor(/API reference/))![1]!;
    expect((await quipu(['merchants', 'update', account, '--redirect-uri', CALLBACK], env)).code).toBe(0);
    const query = new URLSearchParams({
      client_id: account,
      redirect_uri: CALLBACK,
      response_type: 'code',
      response_mode: 'query',
      scope: 'api openid',
      institution_id: 'Bawdf',
    });
    const res = await fetch(`${served.baseUrl}/oauth2/authorize?${query}`, { headers: { 'x-request-id': 'doubt-log-oauth' }, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get(WARNINGS_HEADER)).toBeNull();
    const lines = () => logLines(served).filter((line) => line.reqId === 'doubt-log-oauth' && line.msg === 'request');
    await expect.poll(lines, { timeout: 5_000 }).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 30, warnings: [{ field: 'scope', message: 'is read as "openid api", as the contract writes it' }] });
  }, 60_000);
});
