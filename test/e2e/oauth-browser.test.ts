// The authorization code flow with PKCE as a merchant integrates it: openid-client (configured by
// discovery alone) builds the request, a real chromium goes through the sign-in and consent pages,
// the merchant's callback (a local node:http server) receives the code, openid-client redeems it
// and validates the id_token, and the access token reads a payment from the v3 API. The flow also
// starts from the merchant's own site (another site than Quipu's), as it does in production, where
// the cookie binding the flow to the browser must survive the cross-site start.
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { call, client } from '../helpers/http.js';
import { html } from '../../src/render/html.js';
import { type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { registerRedirectUris } from '../helpers/oauth.js';
import { useTestServer } from '../helpers/server.js';

let browser: Browser;
let shop: Receiver;
let config: oidc.Configuration;
let callback: string;
let paymentId: string;
let page: Page;

const setup = useTestServer();
beforeAll(async () => {
  browser = await launchBrowser();
  shop = await startReceiver(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<h1>Back at the shop</h1>' }));
  callback = shop.url.replace('/notify', '/callback');
  await registerRedirectUris(setup.server, setup.account, [callback]);
  // Plain http is refused by openid-client unless allowed: the test server has no TLS.
  config = await oidc.discovery(new URL(setup.server.baseUrl), String(setup.account.receiver_id), undefined, oidc.ClientSecretBasic(setup.account.secret), {
    execute: [oidc.allowInsecureRequests],
  });
  paymentId = (await client(setup.server.baseUrl, setup.account.api_key).post('/v3/payments', { amount: 2500, currency: 'CLP', subject: 'OAuth browser test' }))
    .body.payment_id;
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
});
beforeEach(async () => {
  page = await (await browser.newContext()).newPage();
});
afterEach(async () => {
  await page.context().close();
});

async function signInAndConsent(url: URL): Promise<void> {
  await page.goto(url.href);
  await page.fill('#rut', '11.111.111-1');
  await page.fill('#password', '1234');
  await page.click('#login');
  await page.waitForSelector('#allow');
  expect(await page.textContent('#user')).toBe('11.111.111-1');
  await page.click('#allow');
}

/** An authorization request for DemoBank with PKCE (S256), as openid-client builds it. */
async function pkceAuthorizationUrl(verifier: string, params: Record<string, string>): Promise<URL> {
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: callback,
    scope: 'openid api',
    institution_id: 'Bawdf',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  });
}

describe('authorization code flow in a browser, with openid-client', () => {
  it('delivers a code by query that openid-client redeems with PKCE; the token reads a payment', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = await pkceAuthorizationUrl(verifier, { response_mode: 'query', state, nonce, custom: 'cart 9' });
    const before = shop.requests.length;
    await signInAndConsent(url);
    await shop.waitFor((requests) => requests.length > before);
    await page.waitForSelector('h1');
    expect(await page.textContent('h1')).toBe('Back at the shop');
    const arrived = shop.requests[before]!;
    expect(arrived.method).toBe('GET');

    const tokens = await oidc.authorizationCodeGrant(config, new URL(arrived.path, callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(31536000);
    expect(tokens.refresh_token).toBeUndefined();
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: setup.server.baseUrl, aud: String(setup.account.receiver_id), nonce, custom: 'cart 9' });

    const payment = await call(setup.server.baseUrl, 'GET', `/v3/payments/${paymentId}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(payment.status).toBe(200);
    expect(payment.body.payment_id).toBe(paymentId);

    await oidc.tokenRevocation(config, tokens.access_token);
    expect((await call(setup.server.baseUrl, 'GET', `/v3/payments/${paymentId}`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      401,
    );
  });

  it('posts the code to the callback with response_mode=form_post, under the page’s strict CSP', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await pkceAuthorizationUrl(verifier, { response_mode: 'form_post', state });
    const before = shop.requests.length;
    await signInAndConsent(url);
    await shop.waitFor((requests) => requests.length > before);
    const arrived = shop.requests[before]!;
    expect(arrived.method).toBe('POST');
    const request = new Request(callback, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: arrived.body });
    const tokens = await oidc.authorizationCodeGrant(config, request, { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true });
    expect((await call(setup.server.baseUrl, 'GET', `/v3/payments/${paymentId}`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      200,
    );
  });

  it('returns a refusal (A001) as an OAuth error that openid-client recognises, with the contract’s codes', async () => {
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: callback, scope: 'openid api', response_mode: 'query', institution_id: 'Bawdf', state });
    const before = shop.requests.length;
    await page.goto(url.href);
    await page.fill('#rut', '11.111.111-1');
    await page.fill('#password', '1234');
    await page.click('#login');
    await page.click('#deny');
    await shop.waitFor((requests) => requests.length > before);
    const back = new URL(shop.requests[before]!.path, callback);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', error_code: 'A001', error_type: 'DO_NOT_RETRY', state });
    await expect(oidc.authorizationCodeGrant(config, back, { expectedState: state })).rejects.toMatchObject({ error: 'access_denied' });
  });

  it.each([
    ['a link', (url: URL) => html`<a id="go" href="${url.href}">Conectar tu banco</a>`],
    [
      'a form POST',
      (url: URL) => html`<form method="post" action="${url.origin}${url.pathname}">
${[...url.searchParams].map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button id="go">Conectar tu banco</button></form>`,
    ],
  ])('starts from %s on the merchant’s own site and finishes in the same browser', async (_name, start) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await pkceAuthorizationUrl(verifier, { response_mode: 'query', state });
    // localhost and 127.0.0.1 are different sites to the browser.
    const shopPage = `${new URL(callback).origin.replace('127.0.0.1', 'localhost')}/start`;
    shop.answer((request) =>
      request.path === '/start'
        ? { status: 200, headers: { 'content-type': 'text/html' }, body: `<!doctype html><html><body>${start(url)}</body></html>` }
        : { status: 200, headers: { 'content-type': 'text/html' }, body: '<h1>Back at the shop</h1>' },
    );
    await page.goto(shopPage);
    const before = shop.requests.length;
    await page.click('#go');
    await page.fill('#rut', '11.111.111-1');
    await page.fill('#password', '1234');
    await page.click('#login');
    await page.click('#allow');
    await shop.waitFor((requests) => requests.slice(before).some((r) => r.path.startsWith('/callback')));
    const arrived = shop.requests.slice(before).find((r) => r.path.startsWith('/callback'))!;
    const tokens = await oidc.authorizationCodeGrant(config, new URL(arrived.path, callback), { pkceCodeVerifier: verifier, expectedState: state });
    expect((await call(setup.server.baseUrl, 'GET', `/v3/payments/${paymentId}`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      200,
    );
  });

  it('refuses a flow opened in another browser, changing nothing', async () => {
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callback,
      scope: 'openid api',
      response_mode: 'query',
      institution_id: 'Bawdf',
      state: oidc.randomState(),
    });
    const opener = await (await browser.newContext()).newPage();
    try {
      await opener.goto(url.href);
      await opener.waitForSelector('#login');
      // The flow's address, opened in a browser that did not start it.
      await page.goto(opener.url());
      expect(await page.textContent('#message')).toContain('otro navegador');
      expect(await page.locator('#rut').count()).toBe(0);
      // The browser that started it goes on.
      await opener.fill('#rut', '11.111.111-1');
      await opener.fill('#password', '1234');
      await opener.click('#login');
      await opener.waitForSelector('#allow');
    } finally {
      await opener.context().close();
    }
  });

  it('issues client credentials tokens to openid-client', async () => {
    const tokens = await oidc.clientCredentialsGrant(config);
    expect(tokens.scope).toBe('api');
    expect((await call(setup.server.baseUrl, 'GET', `/v3/payments/${paymentId}`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      200,
    );
  });
});
