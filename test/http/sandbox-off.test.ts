// With SANDBOX=false nothing of the test bank or the developer clock is reachable: every route a
// sandbox installation registers for them (read from its route tree, so a new one is covered
// without being listed here) answers 404 on a production installation, to a request carrying a
// developer-mode account's API key and its owner's signed-in dashboard session with a valid form
// token, and changes nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { countRows } from '../helpers/payments.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { concretePath, registeredRoutes, type RegisteredRoute } from '../helpers/routes.js';
import { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/** What the sandbox offers: its API, DemoBank's portal and pages, the dashboard's developer page and DemoBank actions. */
const SANDBOX_ONLY = /^\/sandbox\/|^\/demobank\/|^\/dashboard\/developer|\/demobank-/;

let sandbox: TestServer;
let production: TestServer;
let account: TestAccount;
let routes: RegisteredRoute[];

beforeAll(async () => {
  sandbox = await startTestServer();
  production = await startTestServer({ SANDBOX: 'false', DASHBOARD_TWO_FACTOR: 'optional' });
  account = await production.account({ developer: true, features: { refunds: true } });
  routes = registeredRoutes(sandbox.app).filter((route) => SANDBOX_ONLY.test(route.url) && route.method !== 'HEAD');
});
afterAll(async () => {
  await sandbox?.close();
  await production?.close();
});

it('every route of the test bank and the developer clock is 404 with SANDBOX=false, with every credential', async () => {
  expect(routes.length).toBeGreaterThanOrEqual(25);
  const owner = await addDashboardUser(production.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@production.test' });
  const session = new PayerSession(production.baseUrl, { 'x-api-key': account.api_key });
  const signInPage = await session.get('/dashboard/sign-in');
  expect((await session.post('/dashboard/sign-in', { _csrf: csrfOf(signInPage), email: owner.email, password: owner.password })).status).toBe(303);
  const token = csrfOf(await session.get('/dashboard/settings'));
  const paymentId = (await production.ctx.db.selectFrom('payments').select('payment_id').executeTakeFirst())?.payment_id ?? 'abcdefabcdef';
  const before = await Promise.all((['payments', 'messages', 'subscriptions'] as const).map((t) => countRows(production.ctx.db, t)));
  const offset = production.ctx.clock.offsetMs;
  const found: string[] = [];
  for (const route of routes) {
    const path = concretePath(route.url, route.url.startsWith('/dashboard/payments') ? paymentId : 'x');
    const answer = route.method === 'GET' ? await session.get(path) : await session.post(path, { _csrf: token, advance: '1d' });
    if (answer.status !== 404) found.push(`${route.method} ${path}: ${answer.status}`);
  }
  expect(found).toEqual([]);
  expect(await Promise.all((['payments', 'messages', 'subscriptions'] as const).map((t) => countRows(production.ctx.db, t)))).toEqual(before);
  expect(production.ctx.clock.offsetMs).toBe(offset);
});
