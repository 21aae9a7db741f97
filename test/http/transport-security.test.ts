// What every answer says about transport, and the cookies' names (ASVS 3.3.1, 3.3.3, 3.4.1, 3.4.6,
// 4.2.1, 12.2.1). Over https (PUBLIC_BASE_URL; TLS ends in front of Quipu, so the tests speak plain
// HTTP to it as the terminator does) every cookie is a `__Host-` cookie: Secure, Path=/, no Domain,
// and every answer, JSON included, carries HSTS and `frame-ancestors 'none'`. Over http (a
// developer's machine) the names are plain and no HSTS is sent. Behind a trusted proxy, a request
// the proxy says came over plain HTTP is refused, not redirected. A request that could be smuggled
// (Content-Length beside Transfer-Encoding) is a 400 from Node's parser that reaches no route.
import { describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { call, client, rawExchange } from '../helpers/http.js';
import { authorizeParams, PageClient, registerRedirectUris } from '../helpers/oauth.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { countRows } from '../helpers/payments.js';
import { CHOSEN_PASSWORD, type TestAccount, type TestServer, useTestServer } from '../helpers/server.js';

const HSTS = 'max-age=31536000; includeSubDomains';
const CALLBACK = 'https://client.example/callback';

let users = 0;

/** The Set-Cookie lines of a dashboard sign-in and sign-out, an authorization flow and a payer page, by cookie name. */
async function cookiesSet(server: TestServer, account: TestAccount): Promise<Map<string, string>> {
  const lines: string[] = [];
  const user = await addDashboardUser(server.ctx, account.receiver_id, { email: `owner-${++users}@transport.test`, password: CHOSEN_PASSWORD });
  const session = new PayerSession(server.baseUrl);
  const form = await session.get('/dashboard/sign-in');
  const signedIn = await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email: user.email, password: user.password });
  expect(signedIn.status).toBe(303);
  expect((await session.get('/dashboard')).status).toBe(200);
  const home = await session.get('/dashboard');
  const signedOut = await session.post('/dashboard/sign-out', { _csrf: csrfOf(home) });
  expect(signedOut.status).toBe(303);
  lines.push(...form.headers.getSetCookie(), ...signedIn.headers.getSetCookie(), ...signedOut.headers.getSetCookie());

  await registerRedirectUris(server, account, [CALLBACK]);
  const browser = new PageClient(server.baseUrl);
  const start = await browser.authorize(authorizeParams(account, CALLBACK));
  const flow = await browser.get(start.location!);
  expect(flow.status).toBe(200);
  lines.push(...start.headers.getSetCookie(), ...flow.headers.getSetCookie());

  const payment = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Cookies' });
  const page = await fetch(`${server.baseUrl}${new URL(payment.body.simplified_transfer_url).pathname}?lang=en`);
  expect(page.status).toBe(200);
  lines.push(...page.headers.getSetCookie());
  return new Map(lines.map((line) => [line.slice(0, line.indexOf('=')), line]));
}

describe('over https', () => {
  const setup = useTestServer({ PUBLIC_BASE_URL: 'https://pay.example' });

  it('names every cookie __Host-, Secure, Path=/ and without Domain, and the pages work with them', async () => {
    const cookies = await cookiesSet(setup.server, setup.account);
    expect([...cookies.keys()]).toEqual(
      expect.arrayContaining([
        '__Host-quipu_dashboard_csrf',
        '__Host-quipu_session',
        '__Host-quipu_oauth_csrf',
        '__Host-quipu_csrf',
        '__Host-quipu_lang_payment',
      ]),
    );
    expect([...cookies.keys()].some((name) => /^__Host-quipu_oauth_flow_[\w-]{24}$/.test(name))).toBe(true);
    for (const [name, line] of cookies) {
      expect(name).toMatch(/^__Host-/);
      expect(line).toContain('; Path=/;');
      expect(line).toContain('; Secure');
      expect(line).toContain('; HttpOnly');
      expect(line.toLowerCase()).not.toContain('domain=');
    }
  });

  it('clears the session cookie on sign-out under its __Host- name, Secure (a browser ignores a clear without it)', async () => {
    const cookies = await cookiesSet(setup.server, setup.account);
    const cleared = [...cookies.values()].filter((line) => line.startsWith('__Host-quipu_session=;'));
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toContain('; Secure');
    expect(cleared[0]).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
  });

  it('sends HSTS and frame-ancestors on JSON answers, errors, health and pages alike', async () => {
    const answers = [
      await client(setup.server.baseUrl, setup.account.api_key).get('/v3/banks'),
      await client(setup.server.baseUrl, setup.account.api_key).get('/v3/payments/nope'),
      await call(setup.server.baseUrl, 'GET', '/v3/banks'),
      await call(setup.server.baseUrl, 'GET', '/healthz'),
      await call(setup.server.baseUrl, 'GET', '/openapi.json'),
      await call(setup.server.baseUrl, 'GET', '/no/such/route'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 404, 401, 200, 200, 404]);
    for (const answer of answers) {
      expect(answer.headers.get('strict-transport-security')).toBe(HSTS);
      expect(answer.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    }
    const page = await fetch(`${setup.server.baseUrl}/dashboard/sign-in`);
    expect(page.headers.get('strict-transport-security')).toBe(HSTS);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});

describe('over http, in developer mode', () => {
  const setup = useTestServer();

  it('uses the plain names, without Secure (browsers refuse __Host- cookies without it), still Path=/', async () => {
    const cookies = await cookiesSet(setup.server, setup.account);
    expect([...cookies.keys()]).toEqual(expect.arrayContaining(['quipu_dashboard_csrf', 'quipu_session', 'quipu_oauth_csrf', 'quipu_csrf']));
    for (const [name, line] of cookies) {
      expect(name).not.toMatch(/^__Host-/);
      expect(line).toContain('; Path=/;');
      expect(line).not.toContain('; Secure');
    }
  });

  it('sends no HSTS, and frame-ancestors still', async () => {
    const banks = await client(setup.server.baseUrl, setup.account.api_key).get('/v3/banks');
    expect(banks.headers.get('strict-transport-security')).toBeNull();
    expect(banks.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect((await fetch(`${setup.server.baseUrl}/dashboard/sign-in`)).headers.get('strict-transport-security')).toBeNull();
  });
});

describe('behind a trusted proxy, over https', () => {
  const setup = useTestServer({ PUBLIC_BASE_URL: 'https://pay.example', TRUST_PROXY: '127.0.0.1' });

  it('refuses what the proxy says came over plain HTTP with a 403 that does nothing, never a redirect', async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const plain = await client(setup.server.baseUrl, setup.account.api_key).post(
      '/v3/payments',
      { amount: 1000, currency: 'CLP', subject: 'In the clear' },
      { 'x-forwarded-proto': 'http' },
    );
    expect(plain.status).toBe(403);
    expect(plain.headers.get('location')).toBeNull();
    expect(plain.body.message).toBe('Plain HTTP is refused: use https://pay.example');
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
    const page = await fetch(`${setup.server.baseUrl}/dashboard/sign-in`, { headers: { 'x-forwarded-proto': 'http' }, redirect: 'manual' });
    expect(page.status).toBe(403);

    const secure = await client(setup.server.baseUrl, setup.account.api_key).post(
      '/v3/payments',
      { amount: 1000, currency: 'CLP', subject: 'Over TLS' },
      { 'x-forwarded-proto': 'https' },
    );
    expect(secure.status).toBe(200);
    // The balancer's own health check names no protocol, and is answered.
    expect((await call(setup.server.baseUrl, 'GET', '/healthz')).status).toBe(200);
  });
});

describe('request smuggling', () => {
  const setup = useTestServer();

  const exchange = (raw: string) => rawExchange(setup.server.baseUrl, raw);

  it('answers Content-Length beside Transfer-Encoding with one 400, and the request hidden in the body reaches no route', async () => {
    const before = await countRows(setup.server.ctx.db, 'payments');
    const hidden = JSON.stringify({ amount: 1000, currency: 'CLP', subject: 'Smuggled' });
    const smuggled = `POST /v3/payments HTTP/1.1\r\nHost: x\r\nx-api-key: ${setup.account.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${hidden.length}\r\n\r\n${hidden}`;
    const body = `0\r\n\r\n${smuggled}`;
    const answer = await exchange(
      `POST /v3/payments HTTP/1.1\r\nHost: x\r\nx-api-key: ${setup.account.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
    );
    expect(answer.match(/^HTTP\/1\.1 \d{3}/gm)).toEqual(['HTTP/1.1 400']);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
  });

  it('answers two different Content-Lengths with a 400', async () => {
    const answer = await exchange('POST /v3/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 30\r\n\r\n{}');
    expect(answer.match(/^HTTP\/1\.1 \d{3}/gm)).toEqual(['HTTP/1.1 400']);
  });
});
