// The written access rules (docs/access-rules.md, ASVS 8.1.2) against the code: the table of
// dashboard actions names the roles of src/domain/dashboard-roles.ts, lists only routes the running
// server has and every form route it has (read from its route tree, so a new one must be written
// down), and every role the table does not tick is refused every route of the row, which every
// role it ticks is not.
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { DASHBOARD_ACTIONS, DASHBOARD_ROLES, type DashboardRole } from '../../src/domain/dashboard-roles.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { concretePath, registeredRoutes } from '../helpers/routes.js';
import { CHOSEN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

interface Row {
  action: string;
  roles: DashboardRole[];
  routes: { method: string; url: string }[];
}

/** The rows of the table under "Dashboard roles and actions". */
function writtenRows(): Row[] {
  const text = fs.readFileSync(new URL('../../docs/access-rules.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## Dashboard roles and actions'), text.indexOf('## Fields, resource by resource'));
  return section
    .split('\n')
    .filter((line) => /^\| `[a-z.-]+` \|/.test(line))
    .map((line) => {
      const [action, owner, developer, viewer, routes] = line
        .split('|')
        .slice(1, 6)
        .map((cell) => cell.trim());
      const ticks = { owner, developer, viewer } as Record<DashboardRole, string>;
      return {
        action: action!.replace(/`/g, ''),
        roles: DASHBOARD_ROLES.filter((role) => ticks[role] === 'yes'),
        routes: [...routes!.matchAll(/`(GET|POST) ([^`]+)`/g)].map(([, method, url]) => ({ method: method!, url: url! })),
      };
    });
}

const SIGN_IN_FORMS = new Set(['POST /dashboard/sign-in', 'POST /dashboard/sign-in/code']);

let server: TestServer;
const sessions = {} as Record<DashboardRole, PayerSession>;

beforeAll(async () => {
  server = await startTestServer();
  const account = await server.account();
  for (const role of DASHBOARD_ROLES) {
    const user = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: `${role}@rules.test`, role });
    const session = new PayerSession(server.baseUrl);
    const signIn = await session.post('/dashboard/sign-in', {
      _csrf: csrfOf(await session.get('/dashboard/sign-in')),
      email: user.email,
      password: user.password,
    });
    expect(signIn.status).toBe(303);
    sessions[role] = session;
  }
});
afterAll(async () => server?.close());

it('names the roles of the code for every action, and every action', () => {
  const rows = writtenRows();
  expect(Object.fromEntries(rows.map((row) => [row.action, row.roles]))).toEqual(
    Object.fromEntries(Object.entries(DASHBOARD_ACTIONS).map(([action, roles]) => [action, [...roles]])),
  );
});

it("lists only the server's routes, and every form the dashboard takes", () => {
  const registered = registeredRoutes(server.app).map((route) => `${route.method} ${route.url}`);
  const written = writtenRows().flatMap((row) => row.routes.map((route) => `${route.method} ${route.url}`));
  expect(written.filter((route) => !registered.includes(route))).toEqual([]);
  const forms = registered.filter((route) => route.startsWith('POST /dashboard') && !SIGN_IN_FORMS.has(route));
  expect(
    forms.filter((route) => !written.includes(route)),
    'forms missing from docs/access-rules.md',
  ).toEqual([]);
});

it('refuses every route of a row to each role the row does not tick, and to no role it ticks', async () => {
  const wrong: string[] = [];
  for (const row of writtenRows()) {
    // An action for everyone refuses nobody; posting it (signing out) would end the session the rest needs.
    if (row.roles.length === DASHBOARD_ROLES.length) continue;
    for (const role of DASHBOARD_ROLES) {
      const session = sessions[role];
      const token = csrfOf(await session.get('/dashboard/settings'));
      for (const route of row.routes) {
        const path = concretePath(route.url, 'x');
        const answer = route.method === 'GET' ? await session.get(path) : await session.post(path, { _csrf: token });
        if ((answer.status === 403) === row.roles.includes(role)) wrong.push(`${role} ${route.method} ${path}: ${answer.status}`);
      }
    }
  }
  expect(wrong).toEqual([]);
});
