// The dashboard on an origin of its own (ASVS 3.5.4): with DASHBOARD_BASE_URL, the dashboard's
// pages are answered only on its host (told by the Host header), the APIs, payer pages and the rest
// only on PUBLIC_BASE_URL's; a page asked for on the wrong host is sent to the right one, any other
// method there is a 404 that changes nothing, and a dashboard session signed in on its host opens
// nothing on the other. The health checks answer on both. Whose a path is, is decided by the route
// that answers it: `/%64ashboard/sign-in` is the dashboard's sign-in.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { loadConfig } from '../../src/config.js';
import { countRows } from '../helpers/payments.js';
import { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const DASHBOARD = 'dashboard.test';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request to the test server as if addressed to `host`. */
function request(server: TestServer, host: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { ...headers, host } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cookiesOf = (answer: Answer) => (answer.headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]!);
const csrfIn = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;

let server: TestServer;
let account: TestAccount;
let api: string;

beforeAll(async () => {
  server = await startTestServer({ DASHBOARD_BASE_URL: `http://${DASHBOARD}` });
  account = await server.account();
  api = new URL(server.baseUrl).host;
});
afterAll(async () => server?.close());

describe('DASHBOARD_BASE_URL', () => {
  it('answers the dashboard only on its host, and sends its pages there from the other', async () => {
    expect((await request(server, DASHBOARD, 'GET', '/dashboard/sign-in')).status).toBe(200);
    const elsewhere = await request(server, api, 'GET', '/dashboard/sign-in?lang=en');
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.location).toBe(`http://${DASHBOARD}/dashboard/sign-in?lang=en`);
    expect((await request(server, api, 'GET', '/')).headers.location).toBe(`http://${DASHBOARD}/`);
    expect(
      (await request(server, api, 'POST', '/dashboard/sign-in', { 'content-type': 'application/x-www-form-urlencoded' }, 'email=a&password=b')).status,
    ).toBe(404);
  });

  it('answers nothing but the dashboard on its host', async () => {
    expect((await request(server, api, 'GET', '/v3/banks', { 'x-api-key': account.api_key })).status).toBe(200);
    const banks = await request(server, DASHBOARD, 'GET', '/v3/banks', { 'x-api-key': account.api_key });
    expect(banks.status).toBe(303);
    expect(banks.headers.location).toBe(`${server.config.publicBaseUrl}/v3/banks`);
    const before = await countRows(server.ctx.db, 'payments');
    const created = await request(
      server,
      DASHBOARD,
      'POST',
      '/v3/payments',
      { 'x-api-key': account.api_key, 'content-type': 'application/json' },
      JSON.stringify({ amount: 1000, currency: 'CLP', subject: 'Wrong host' }),
    );
    expect(created.status).toBe(404);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
    for (const host of [api, DASHBOARD]) expect((await request(server, host, 'GET', '/healthz')).status, host).toBe(200);
  });

  it('judges a path by the route that answers it, however the path is spelled', async () => {
    const elsewhere = await request(server, api, 'GET', '/%64ashboard/sign-in');
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.location).toBe(`http://${DASHBOARD}/%64ashboard/sign-in`);
    expect((await request(server, DASHBOARD, 'GET', '/%64ashboard/sign-in')).status).toBe(200);
    expect(
      (await request(server, api, 'POST', '/dashboard/sign%2Din', { 'content-type': 'application/x-www-form-urlencoded' }, 'email=a&password=b')).status,
    ).toBe(404);
    const banks = await request(server, DASHBOARD, 'GET', '/v%33/banks', { 'x-api-key': account.api_key });
    expect(banks.status).toBe(303);
    expect(banks.headers.location).toBe(`${server.config.publicBaseUrl}/v%33/banks`);
  });

  it('keeps a session signed in on the dashboard host to that host', async () => {
    const user = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@origin.test' });
    const page = await request(server, DASHBOARD, 'GET', '/dashboard/sign-in');
    const form = new URLSearchParams({ _csrf: csrfIn(page.body), email: user.email, password: user.password }).toString();
    const signIn = await request(
      server,
      DASHBOARD,
      'POST',
      '/dashboard/sign-in',
      { cookie: cookiesOf(page).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    expect(signIn.status).toBe(303);
    const cookie = [...cookiesOf(page), ...cookiesOf(signIn)].join('; ');
    expect((await request(server, DASHBOARD, 'GET', '/dashboard/payments', { cookie })).status).toBe(200);
    // The same cookies sent to the API's host open no dashboard page there.
    expect((await request(server, api, 'GET', '/dashboard/payments', { cookie })).status).toBe(303);
  });

  it('must be another host than PUBLIC_BASE_URL, an origin, and https where that is', () => {
    const https = { PUBLIC_BASE_URL: 'https://pay.example' };
    expect(loadConfig({ ...https, DASHBOARD_BASE_URL: 'https://Dashboard.pay.example/' }).dashboardBaseUrl).toBe('https://dashboard.pay.example');
    expect(() => loadConfig({ ...https, DASHBOARD_BASE_URL: 'https://pay.example' })).toThrow(/another host than PUBLIC_BASE_URL/);
    expect(() => loadConfig({ ...https, DASHBOARD_BASE_URL: 'http://dashboard.pay.example' })).toThrow(/must be https when PUBLIC_BASE_URL is/);
    expect(() => loadConfig({ ...https, DASHBOARD_BASE_URL: 'https://pay.example/dashboard' })).toThrow(/must be an origin/);
    expect(loadConfig(https).dashboardBaseUrl).toBeUndefined();
  });
});
