// The authorization code flow over HTTP, page by page: the redirects and their error codes, PKCE,
// single-use codes, the form_post mode, custom and x-custom, timeouts on the developer clock, the
// pages' CSRF protection, CSP and binding to the browser that started the flow, and the
// institution's credential-change report.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/domain/oauth-pkce.js';
import { call, client } from '../helpers/http.js';
import {
  authorizeParams,
  basicAuth,
  csrfOf,
  decodeJwtPart,
  formPost,
  formPostFields,
  PageClient,
  redirectParams,
  registerRedirectUris,
} from '../helpers/oauth.js';
import { countRows } from '../helpers/payments.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';

const CALLBACK = 'https://client.example/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

let paymentId: string;

const setup = useTestServer();
beforeAll(async () => {
  await registerRedirectUris(setup.server, setup.account, [CALLBACK, 'https://client.example/cb?tenant=7', 'com.example.app:/oauth']);
  paymentId = (await client(setup.server.baseUrl, setup.account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Flow test' })).body
    .payment_id;
});

const pkce = { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' };

function exchange(code: string, extra: Record<string, string> = {}, who: TestAccount = setup.account) {
  return formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...extra }, basicAuth(who));
}

async function codeFor(params: Record<string, string> = {}): Promise<string> {
  const done = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK, params));
  expect(done.status).toBe(303);
  return redirectParams(done.location).code!;
}

const getPayment = (token: string) => call(setup.server.baseUrl, 'GET', `/v3/payments/${paymentId}`, { headers: { authorization: `Bearer ${token}` } });

const flowRow = (flowPath: string) =>
  setup.server.ctx.db
    .selectFrom('oauth_authorizations')
    .select(['status', 'user_id', 'code_hash', 'browser_hash'])
    .where('authorization_id', '=', flowPath.split('/').pop()!)
    .executeTakeFirstOrThrow();

const credentialChange = (rut: string) =>
  call(setup.server.baseUrl, 'POST', `/sandbox/institutions/Bawdf/users/${rut}/credential-change`, { apiKey: setup.account.api_key });

describe('authorization code flow', () => {
  it('signs in at DemoBank, consents and redirects with the code and state; the code buys an access token and an id_token', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const start = await browser.authorize(authorizeParams(setup.account, CALLBACK, { ...pkce, nonce: 'n-1', custom: 'order 42' }));
    expect(start.status).toBe(303);
    const flow = start.location!;
    const login = await browser.get(flow);
    expect(login.status).toBe(200);
    expect(login.text).toContain('Test store');
    expect(login.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' https://client.example; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(login.headers.get('x-content-type-options')).toBe('nosniff');
    const signedIn = await browser.signIn(flow, '11.111.111-1', '1234');
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(flow);
    const consent = await browser.get(flow);
    expect(consent.text).toContain('11.111.111-1');
    const done = await browser.decide(flow, 'allow');
    expect(done.status).toBe(303);
    expect(done.location!.startsWith(`${CALLBACK}?`)).toBe(true);
    expect(done.headers.get('x-custom')).toBe('order 42');
    const params = redirectParams(done.location);
    expect(params).toEqual({ code: expect.any(String), state: 'st-123' });

    const res = await exchange(params.code!, { code_verifier: VERIFIER });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 31536000,
      scope: 'openid api',
      id_token: expect.any(String),
    });
    expect(res.headers.get('x-custom')).toBe('order 42');
    const access = decodeJwtPart(res.body.access_token, 1);
    expect(access).toMatchObject({ sub: String(setup.account.receiver_id), scope: 'openid api', custom: 'order 42' });
    const id = decodeJwtPart(res.body.id_token, 1);
    expect(id).toMatchObject({ iss: setup.server.baseUrl, aud: String(setup.account.receiver_id), nonce: 'n-1', sub: expect.any(String) });
    expect(id.sub).not.toContain('11111111');
    expect((await getPayment(res.body.access_token)).status).toBe(200);
  });

  it('leaves nonce out of the id_token when the request sent none', async () => {
    const id = decodeJwtPart((await exchange(await codeFor())).body.id_token, 1);
    expect(id).toMatchObject({ iss: setup.server.baseUrl, aud: String(setup.account.receiver_id), sub: expect.any(String) });
    expect(id).not.toHaveProperty('nonce');
  });

  it('takes the authorization request as a form POST too (OpenID Connect Core 3.1.2.1)', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const start = await browser.post('/oauth2/authorize', authorizeParams(setup.account, CALLBACK, pkce));
    expect(start.status).toBe(303);
    expect(start.location).toMatch(/^\/oauth2\/flows\//);
    expect((await browser.signIn(start.location!, '11.111.111-1', '1234')).location).toBe(start.location);
    const done = await browser.decide(start.location!, 'allow');
    expect((await exchange(redirectParams(done.location).code!, { code_verifier: VERIFIER })).status).toBe(200);
    const refused = await browser.post('/oauth2/authorize', authorizeParams(setup.account, CALLBACK, { scope: 'openid' }));
    expect(redirectParams(refused.location)).toMatchObject({ error_code: 'A002', state: 'st-123' });
    const before = await countRows(setup.server.ctx.db, 'oauth_authorizations');
    const json = await fetch(`${setup.server.baseUrl}/oauth2/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(authorizeParams(setup.account, CALLBACK)),
      redirect: 'manual',
    });
    expect(json.status).toBe(400);
    expect(await json.text()).toContain('application/x-www-form-urlencoded');
    expect(await countRows(setup.server.ctx.db, 'oauth_authorizations')).toBe(before);
  });

  it('opens no flow for HEAD', async () => {
    const before = await countRows(setup.server.ctx.db, 'oauth_authorizations');
    const res = await fetch(`${setup.server.baseUrl}/oauth2/authorize?${new URLSearchParams(authorizeParams(setup.account, CALLBACK))}`, {
      method: 'HEAD',
      redirect: 'manual',
    });
    // The path takes GET and POST only: a HEAD is refused before any handler runs.
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await countRows(setup.server.ctx.db, 'oauth_authorizations')).toBe(before);
  });

  it('gives the same user the same id_token subject in a later flow', async () => {
    const subjectOf = async () => decodeJwtPart((await exchange(await codeFor())).body.id_token, 1).sub;
    expect(await subjectOf()).toBe(await subjectOf());
  });

  it('delivers the code with an auto-submitted form for response_mode=form_post', async () => {
    const done = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK, { response_mode: 'form_post', state: 'a&b"c' }));
    expect(done.status).toBe(200);
    const csp = done.headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self' https://client.example");
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(done.text).toContain(`<script nonce="${nonce}">`);
    const { action, fields } = formPostFields(done.text);
    expect(action).toBe(CALLBACK);
    expect(fields.state).toBe('a&amp;b&quot;c');
    expect((await exchange(fields.code!)).status).toBe(200);
  });

  it('turns the longest custom into a token the API accepts', async () => {
    // Control characters are the worst case: each is written as \u00XX in the token's JSON.
    const custom = '\u0001'.repeat(1024);
    const done = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK, { custom }));
    expect(decodeURIComponent(done.headers.get('x-custom')!)).toBe(custom);
    const res = await exchange(redirectParams(done.location).code!);
    expect(decodeJwtPart(res.body.access_token, 1).custom).toBe(custom);
    expect(res.body.access_token.length).toBeLessThan(9 * 1024);
    expect((await getPayment(res.body.access_token)).status).toBe(200);
  });

  it('keeps the registered redirect_uri’s own query and accepts plain PKCE', async () => {
    const uri = 'https://client.example/cb?tenant=7';
    const verifier = 'plain-verifier-plain-verifier-plain-verifier-0123';
    const done = await new PageClient(setup.server.baseUrl).runFlow(
      authorizeParams(setup.account, uri, { code_challenge: verifier, code_challenge_method: 'plain' }),
    );
    const params = redirectParams(done.location);
    expect(params.tenant).toBe('7');
    expect((await exchange(params.code!, { redirect_uri: uri, code_verifier: 'wrong'.padEnd(43, 'x') })).body.error).toBe('invalid_grant');
    const again = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, uri, { code_challenge: verifier }));
    expect((await exchange(redirectParams(again.location).code!, { redirect_uri: uri, code_verifier: verifier })).status).toBe(200);
  });
});

describe('x-custom on every answer that ends the flow', () => {
  const custom = 'pedido 42 ñ';
  const header = (res: { headers: Headers }) => res.headers.get('x-custom');

  it('comes with the form_post page that delivers the code', async () => {
    const done = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK, { response_mode: 'form_post', custom }));
    expect(done.status).toBe(200);
    expect(formPostFields(done.text).fields.code).toEqual(expect.any(String));
    expect(decodeURIComponent(header(done)!)).toBe(custom);
  });

  it.each([
    ['A002, refused at /oauth2/authorize', { scope: 'openid' }, {}],
    ['E201, an institution without connector', { institution_id: 'WbPkK' }, {}],
    ['A001, consent refused', {}, { decision: 'deny' as const }],
    ['E102, credentials refused by DemoBank', {}, { password: '9999' }],
    ['E003, DemoBank’s rehearsal of a controlled error, under form_post', { response_mode: 'form_post' }, { password: 'E003' }],
  ])('comes with the error redirect of %s', async (_name, extra, options) => {
    const res = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK, { custom, ...extra }), options);
    expect(res.status).toBe(303);
    expect(redirectParams(res.location).error_code).toMatch(/^[AE]\d{3}$/);
    expect(decodeURIComponent(header(res)!)).toBe(custom);
  });

  it('is left out when no custom was sent, or when the custom itself was refused', async () => {
    const none = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK), { decision: 'deny' });
    expect(redirectParams(none.location).error_code).toBe('A001');
    expect(header(none)).toBeNull();
    const tooLong = await new PageClient(setup.server.baseUrl).authorize(authorizeParams(setup.account, CALLBACK, { custom: 'x'.repeat(1025) }));
    expect(redirectParams(tooLong.location).error_code).toBe('A002');
    expect(header(tooLong)).toBeNull();
  });
});

describe('codes', () => {
  it('refuses a code used twice and revokes the tokens issued from it', async () => {
    const code = await codeFor();
    const first = await exchange(code);
    expect(first.status).toBe(200);
    expect((await getPayment(first.body.access_token)).status).toBe(200);
    const second = await exchange(code);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await getPayment(first.body.access_token)).status).toBe(401);
  });

  it.each([
    ['a wrong redirect_uri', {}, { redirect_uri: 'https://client.example/other' }],
    ['a wrong verifier', pkce, { code_verifier: 'x'.repeat(43) }],
    ['a missing verifier when a challenge was sent', pkce, {}],
    ['a verifier when no challenge was sent (PKCE downgrade)', {}, { code_verifier: VERIFIER }],
  ])('refuses %s with invalid_grant, grants nothing and uses the code up', async (_name, authorize, tokenParams) => {
    const code = await codeFor(authorize);
    const before = await countRows(setup.server.ctx.db, 'oauth_tokens');
    const res = await exchange(code, tokenParams);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(await countRows(setup.server.ctx.db, 'oauth_tokens')).toBe(before);
    const right: Record<string, string> = 'code_challenge' in authorize ? { code_verifier: VERIFIER } : {};
    expect((await exchange(code, right)).body.error).toBe('invalid_grant');
    expect(await countRows(setup.server.ctx.db, 'oauth_tokens')).toBe(before);
  });

  it('refuses another client’s code without using it up', async () => {
    const code = await codeFor();
    const other = await setup.server.account();
    expect((await exchange(code, {}, other)).body.error).toBe('invalid_grant');
    expect((await exchange(code)).status).toBe(200);
  });

  it('refuses a code after 10 minutes on the developer clock', async () => {
    const code = await codeFor();
    setup.server.ctx.clocks.setOffset(setup.server.ctx.clock.offsetMs + 10 * 60_000 + 1000);
    expect((await exchange(code)).body.error).toBe('invalid_grant');
  });

  it('needs code and redirect_uri', async () => {
    expect(
      (await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'authorization_code', redirect_uri: CALLBACK }, basicAuth(setup.account))).body
        .error,
    ).toBe('invalid_request');
    expect(
      (await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'authorization_code', code: 'abc' }, basicAuth(setup.account))).body.error,
    ).toBe('invalid_request');
  });
});

describe('authorization request errors', () => {
  it.each([
    ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/callback' }, 'redirect_uri'],
    ['an open-redirect attempt on a registered prefix', { redirect_uri: `${CALLBACK}/../../evil` }, 'redirect_uri'],
    ['a registered URI with extra query', { redirect_uri: `${CALLBACK}?next=https://evil.example` }, 'redirect_uri'],
    ['a missing redirect_uri', { redirect_uri: undefined }, 'redirect_uri'],
    ['an unknown client_id', { client_id: '999999999' }, 'client_id'],
    ['a client_id that is not a number', { client_id: 'abc' }, 'client_id'],
  ])('shows an error page for %s and redirects nowhere', async (_name, extra, parameter) => {
    const before = await countRows(setup.server.ctx.db, 'oauth_authorizations');
    const res = await new PageClient(setup.server.baseUrl).authorize(authorizeParams(setup.account, CALLBACK, extra));
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain(parameter);
    expect(res.text).not.toContain('evil.example');
    expect(await countRows(setup.server.ctx.db, 'oauth_authorizations')).toBe(before);
  });

  it.each([
    ['a missing institution_id', { institution_id: undefined }, 'A002', 'INVALID_REQUEST', 'institution_id'],
    ['an unknown institution_id', { institution_id: 'Zzzzz' }, 'A002', 'INVALID_REQUEST', 'institution_id'],
    ['a wrong scope', { scope: 'openid' }, 'A002', 'INVALID_REQUEST', 'scope'],
    ['an extra scope', { scope: 'openid api admin' }, 'A002', 'INVALID_REQUEST', 'scope'],
    ['a custom longer than 1024 characters', { custom: 'x'.repeat(1025) }, 'A002', 'INVALID_REQUEST', 'custom'],
    ['a missing response_mode', { response_mode: undefined }, 'A002', 'INVALID_REQUEST', 'response_mode'],
    ['response_mode fragment', { response_mode: 'fragment' }, 'A002', 'INVALID_REQUEST', 'response_mode'],
    ['response_type token', { response_type: 'token' }, 'A002', 'INVALID_REQUEST', 'response_type'],
    ['a malformed code_challenge', { code_challenge: 'short' }, 'A002', 'INVALID_REQUEST', 'code_challenge'],
    [
      'an unknown code_challenge_method',
      { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S512' },
      'A002',
      'INVALID_REQUEST',
      'code_challenge_method',
    ],
    ['a method without challenge', { code_challenge_method: 'S256' }, 'A002', 'INVALID_REQUEST', 'code_challenge_method'],
    ['a bank without connector', { institution_id: 'WbPkK' }, 'E201', 'DO_NOT_RETRY', 'institution'],
    // A request to fix is told so, whatever the institution: E201 would tell the client to stop.
    [
      'a malformed code_challenge for a bank without connector',
      { institution_id: 'WbPkK', code_challenge: 'short' },
      'A002',
      'INVALID_REQUEST',
      'code_challenge',
    ],
  ])('redirects %s to the client with the contract’s error', async (_name, extra, code, type, mentioned) => {
    const before = await countRows(setup.server.ctx.db, 'oauth_authorizations');
    const res = await new PageClient(setup.server.baseUrl).authorize(authorizeParams(setup.account, CALLBACK, extra));
    expect(res.status).toBe(303);
    expect(res.location!.startsWith(`${CALLBACK}?`)).toBe(true);
    const params = redirectParams(res.location);
    expect(params).toMatchObject({ error_code: code, error_type: type, state: 'st-123' });
    expect(params.error_description).toContain(mentioned);
    expect(params.code).toBeUndefined();
    expect(await countRows(setup.server.ctx.db, 'oauth_authorizations')).toBe(before);
  });

  it('sends no state back when none was sent, and refuses a repeated parameter', async () => {
    const noState = await new PageClient(setup.server.baseUrl).authorize(authorizeParams(setup.account, CALLBACK, { state: undefined, scope: 'api' }));
    expect(redirectParams(noState.location).state).toBeUndefined();
    const query = `${new URLSearchParams(authorizeParams(setup.account, CALLBACK))}&scope=api`;
    const repeated = await new PageClient(setup.server.baseUrl).get(`/oauth2/authorize?${query}`);
    expect(redirectParams(repeated.location)).toMatchObject({ error_code: 'A002', error_description: expect.stringContaining('scope') });
  });

  it('offers DemoBank only to developer-mode accounts', async () => {
    const production = await setup.server.account({ developer: false });
    await registerRedirectUris(setup.server, production, [CALLBACK]);
    const res = await new PageClient(setup.server.baseUrl).authorize(authorizeParams(production, CALLBACK));
    expect(redirectParams(res.location)).toMatchObject({ error_code: 'A002' });
  });
});

describe('the user’s side', () => {
  it('redirects A001 when the user refuses consent', async () => {
    const res = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK), { decision: 'deny' });
    expect(redirectParams(res.location)).toMatchObject({ error_code: 'A001', error_type: 'DO_NOT_RETRY', error: 'access_denied', state: 'st-123' });
  });

  it.each([
    ['an invalid RUT', '11.111.111-2', '1234', 'E101', 'RETRY_IMMEDIATELY'],
    ['a wrong password', '11.111.111-1', '9999', 'E102', 'RETRY_IMMEDIATELY'],
    ['DemoBank not answering in time', '11.111.111-1', 'E001', 'E001', 'RETRY_IMMEDIATELY'],
    ['DemoBank failing the operation', '11.111.111-1', 'E002', 'E002', 'DO_NOT_RETRY'],
    ['DemoBank reporting a controlled error', '11.111.111-1', 'E003', 'E003', 'RETRY_IMMEDIATELY'],
    ['DemoBank being unavailable', '11.111.111-1', 'E201', 'E201', 'DO_NOT_RETRY'],
    ['DemoBank failing for good', '11.111.111-1', 'E999', 'E999', 'DO_NOT_RETRY'],
  ])('redirects %s with its error code', async (_name, rut, password, code, type) => {
    const res = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK), { rut, password });
    expect(res.status).toBe(303);
    expect(redirectParams(res.location)).toMatchObject({ error_code: code, error_type: type, state: 'st-123' });
  });

  it('asks again, changing nothing, when the sign-in form comes empty', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const flow = (await browser.authorize(authorizeParams(setup.account, CALLBACK))).location!;
    const page = await browser.get(flow);
    const csrf = csrfOf(page.text);
    const res = await browser.post(`${flow}/login`, { _csrf: csrf, rut: '', password: '' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('form-error');
    expect((await browser.signIn(flow, '11111111-1', '1234')).location).toBe(flow);
  });

  it('refuses a form without a valid CSRF token and changes nothing', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const flow = (await browser.authorize(authorizeParams(setup.account, CALLBACK))).location!;
    await browser.get(flow);
    const forged = await browser.post(`${flow}/login`, { _csrf: 'forged', rut: '11.111.111-1', password: '1234' });
    expect(forged.status).toBe(403);
    const stranger = await new PageClient(setup.server.baseUrl).post(`${flow}/login`, { rut: '11.111.111-1', password: '1234' });
    expect(stranger.status).toBe(403);
    expect(await flowRow(flow)).toMatchObject({ status: 'login', user_id: null });
  });

  it('answers a double submission of the consent once', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const flow = (await browser.authorize(authorizeParams(setup.account, CALLBACK))).location!;
    await browser.signIn(flow, '11.111.111-1', '1234');
    const page = await browser.get(flow);
    const csrf = csrfOf(page.text);
    const [a, b] = await Promise.all([
      browser.post(`${flow}/consent`, { _csrf: csrf, decision: 'allow' }),
      browser.post(`${flow}/consent`, { _csrf: csrf, decision: 'allow' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([303, 409]);
  });

  it('shows an unknown flow as a 404 page', async () => {
    const res = await new PageClient(setup.server.baseUrl).get('/oauth2/flows/AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('escapes the client’s name on the pages', async () => {
    const shady = await setup.server.account({ name: '<script>alert(1)</script>' });
    await registerRedirectUris(setup.server, shady, [CALLBACK]);
    const browser = new PageClient(setup.server.baseUrl);
    const page = await browser.get((await browser.authorize(authorizeParams(shady, CALLBACK))).location!);
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('a flow belongs to the browser that started it', () => {
  it('gives the starting browser a cookie for this flow only, and keeps only its hash', async () => {
    const start = await new PageClient(setup.server.baseUrl).authorize(authorizeParams(setup.account, CALLBACK));
    const name = `quipu_oauth_flow_${start.location!.split('/').pop()}`;
    const cookie = start.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))!;
    expect(cookie).toContain('Path=/;');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Max-Age=1200');
    const secret = new RegExp(`^${name}=([^;]+)`).exec(cookie)![1]!;
    expect((await flowRow(start.location!)).browser_hash).toBe(createHash('sha256').update(secret).digest('base64url'));
  });

  it('shows another browser neither the flow nor its user, and lets it change nothing', async () => {
    const user = new PageClient(setup.server.baseUrl);
    const flow = (await user.authorize(authorizeParams(setup.account, CALLBACK))).location!;
    // Another browser that learnt the flow's address, with a valid CSRF token from a flow of its own.
    const other = new PageClient(setup.server.baseUrl);
    const csrf = csrfOf((await other.get((await other.authorize(authorizeParams(setup.account, CALLBACK))).location!)).text);
    const login = await other.post(`${flow}/login`, { _csrf: csrf, rut: '22.222.222-2', password: '1234' });
    expect(login.status).toBe(403);
    expect(login.text).toContain('otro navegador');
    expect(await flowRow(flow)).toMatchObject({ status: 'login', user_id: null });

    expect((await user.signIn(flow, '11.111.111-1', '1234')).location).toBe(flow);
    const page = await other.get(flow);
    expect(page.status).toBe(403);
    expect(page.text).not.toContain('11.111.111-1');
    const consent = await other.post(`${flow}/consent`, { _csrf: csrf, decision: 'allow' });
    expect(consent.status).toBe(403);
    expect(consent.location).toBeNull();
    expect(await flowRow(flow)).toMatchObject({ status: 'consent', code_hash: null });

    const done = await user.decide(flow, 'allow');
    expect(redirectParams(done.location)).toEqual({ code: expect.any(String), state: 'st-123' });
  });

  it('keeps the flows of two tabs of one browser apart', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const first = (await browser.authorize(authorizeParams(setup.account, CALLBACK, { state: 'first' }))).location!;
    const second = (await browser.authorize(authorizeParams(setup.account, CALLBACK, { state: 'second' }))).location!;
    await browser.signIn(first, '11.111.111-1', '1234');
    await browser.signIn(second, '11.111.111-1', '1234');
    expect(redirectParams((await browser.decide(first, 'allow')).location).state).toBe('first');
    expect(redirectParams((await browser.decide(second, 'allow')).location).state).toBe('second');
  });
});

describe('timeouts on the developer clock', () => {
  it('ends a flow whose user never signed in with A003, and one never consented with E001', async () => {
    const idle = new PageClient(setup.server.baseUrl);
    const idleFlow = (await idle.authorize(authorizeParams(setup.account, CALLBACK))).location!;
    const waiting = new PageClient(setup.server.baseUrl);
    const waitingFlow = (await waiting.authorize(authorizeParams(setup.account, CALLBACK))).location!;
    await waiting.signIn(waitingFlow, '11.111.111-1', '1234');
    const consentPage = await waiting.get(waitingFlow);
    const idlePage = await idle.get(idleFlow);
    setup.server.ctx.clocks.setOffset(setup.server.ctx.clock.offsetMs + 11 * 60_000);
    const a003 = await idle.post(`${idleFlow}/login`, { _csrf: csrfOf(idlePage.text), rut: '11.111.111-1', password: '1234' });
    expect(redirectParams(a003.location)).toMatchObject({ error_code: 'A003', error_type: 'RETRY_IMMEDIATELY', state: 'st-123' });
    const e001 = await waiting.post(`${waitingFlow}/consent`, { _csrf: csrfOf(consentPage.text), decision: 'allow' });
    expect(redirectParams(e001.location)).toMatchObject({ error_code: 'E001', error_type: 'RETRY_IMMEDIATELY' });
    expect((await idle.get(idleFlow)).status).toBe(409);
  });
});

describe('credential change at the institution', () => {
  it('stops the tokens of the user’s consents, and only the calling account’s', async () => {
    const mine = (await exchange(await codeFor())).body.access_token;
    const other = await setup.server.account();
    await registerRedirectUris(setup.server, other, [CALLBACK]);
    const otherDone = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(other, CALLBACK));
    const theirs = (await exchange(redirectParams(otherDone.location).code!, {}, other)).body.access_token;
    const clientToken = (await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, basicAuth(setup.account))).body
      .access_token;

    const res = await call(setup.server.baseUrl, 'POST', '/sandbox/institutions/Bawdf/users/111111111/credential-change', { apiKey: setup.account.api_key });
    expect(res.status).toBe(200);
    expect(res.body.revoked_tokens).toBeGreaterThanOrEqual(1);
    expect((await getPayment(mine)).status).toBe(401);
    expect((await getPayment(clientToken)).status).toBe(200);
    const theirPayment = (await client(setup.server.baseUrl, other.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x' })).body
      .payment_id;
    expect((await call(setup.server.baseUrl, 'GET', `/v3/payments/${theirPayment}`, { headers: { authorization: `Bearer ${theirs}` } })).status).toBe(200);
    // The user repeats the flow and gets a working token.
    expect((await getPayment((await exchange(await codeFor())).body.access_token)).status).toBe(200);
  });

  it('withdraws the user’s unfinished flows: an unredeemed code grants nothing, a pending consent ends', async () => {
    const code = await codeFor();
    const browser = new PageClient(setup.server.baseUrl);
    const pending = (await browser.authorize(authorizeParams(setup.account, CALLBACK))).location!;
    await browser.signIn(pending, '11.111.111-1', '1234');
    const consentPage = await browser.get(pending);
    expect((await credentialChange('11.111.111-1')).status).toBe(200);

    const before = await countRows(setup.server.ctx.db, 'oauth_tokens');
    const res = await exchange(code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.stringContaining('withdrawn') });
    expect(await countRows(setup.server.ctx.db, 'oauth_tokens')).toBe(before);
    const consent = await browser.post(`${pending}/consent`, { _csrf: csrfOf(consentPage.text), decision: 'allow' });
    expect(consent.status).toBe(409);
    expect(await flowRow(pending)).toMatchObject({ status: 'failed', code_hash: null });
  });

  it('checks its input and is only for developer-mode accounts', async () => {
    const bad = await call(setup.server.baseUrl, 'POST', '/sandbox/institutions/Bawdf/users/11111111-2/credential-change', { apiKey: setup.account.api_key });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('rut');
    const bank = await call(setup.server.baseUrl, 'POST', '/sandbox/institutions/Zzzzz/users/11111111-1/credential-change', { apiKey: setup.account.api_key });
    expect(bank.body.errors[0].field).toBe('bank_id');
    const production = await setup.server.account({ developer: false });
    expect(
      (await call(setup.server.baseUrl, 'POST', '/sandbox/institutions/Bawdf/users/11111111-1/credential-change', { apiKey: production.api_key })).status,
    ).toBe(403);
    expect((await call(setup.server.baseUrl, 'POST', '/sandbox/institutions/Bawdf/users/11111111-1/credential-change')).status).toBe(401);
  });
});
