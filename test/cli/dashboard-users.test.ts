// Dashboard sign-ins from the command line: `quipu merchants create` prints the account's first
// user beside its API credentials, `quipu users add|list|set-role|reset-password` manage the others
// and their roles, `disable|enable|remove|end-sessions` their access and sessions, and `npm
// start`'s demo account prints its own; each password signs in to a running server's dashboard,
// and a generated one is replaced at its first sign-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { quipu, serveOnFreePort, type ServerProcess } from '../helpers/process.js';

let database: TestDatabase;
let env: Record<string, string>;
let server: ServerProcess & { baseUrl: string };
const started: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info' };
  server = await serveOnFreePort(env, started);
});
afterAll(async () => {
  for (const process of started) await process.stop();
  await database?.drop();
});

async function signedIn(email: string, password: string): Promise<PayerSession> {
  const session = new PayerSession(server.baseUrl);
  const answer = await session.post('/dashboard/sign-in', { _csrf: csrfOf(await session.get('/dashboard/sign-in')), email, password });
  expect(answer.status).toBe(303);
  return session;
}

async function signInStatus(email: string, password: string): Promise<number> {
  const session = new PayerSession(server.baseUrl);
  const form = await session.get('/dashboard/sign-in');
  return (await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email, password })).status;
}

describe('dashboard users', () => {
  it("npm start's demo account prints a dashboard sign-in that works", async () => {
    const out = await server.waitFor(/password\s+\S+/);
    expect(out).toContain('email        demo@quipu.local');
    const password = /password\s+(\S+)/.exec(out)![1]!;
    expect(await signInStatus('demo@quipu.local', password)).toBe(303);
    expect(await signInStatus('demo@quipu.local', 'wrong-password')).toBe(401);
  });

  it('merchants create prints the email chosen and a password that signs in', async () => {
    const created = await quipu(['merchants', 'create', '--name', 'Shop', '--email', 'Boss@Shop.example'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/email\s+boss@shop\.example/);
    const password = /password\s+(\S+)/.exec(created.stdout)![1]!;
    expect(await signInStatus('boss@shop.example', password)).toBe(303);
    const taken = await quipu(['merchants', 'create', '--name', 'Again', '--email', 'boss@shop.example', '--json'], env);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('email: is already a dashboard user');
    // Nothing of the refused account was written.
    const list = JSON.parse((await quipu(['merchants', 'list', '--json'], env)).stdout) as { name: string }[];
    expect(list.map((m) => m.name)).not.toContain('Again');
  });

  it('users add gives another person a sign-in; reset-password replaces it', async () => {
    const { receiver_id } = JSON.parse((await quipu(['merchants', 'create', '--name', 'Team', '--json'], env)).stdout);
    const added = await quipu(['users', 'add', String(receiver_id), '--email', 'clerk@team.example', '--json'], env);
    expect(added.code).toBe(0);
    const clerk = JSON.parse(added.stdout);
    expect(clerk).toEqual({ email: 'clerk@team.example', password: expect.stringMatching(/^[A-Za-z0-9]{22}$/), role: 'owner' });
    expect(await signInStatus(clerk.email, clerk.password)).toBe(303);

    const reset = JSON.parse((await quipu(['users', 'reset-password', 'CLERK@team.example', '--json'], env)).stdout);
    expect(reset.password).not.toBe(clerk.password);
    expect(await signInStatus(clerk.email, clerk.password)).toBe(401);
    expect(await signInStatus(clerk.email, reset.password)).toBe(303);

    const unknownAccount = await quipu(['users', 'add', '999', '--email', 'x@team.example'], env);
    expect(unknownAccount.code).toBe(2);
    expect(unknownAccount.stderr).toContain('Merchant not found');
    const badEmail = await quipu(['users', 'add', String(receiver_id), '--email', 'not-an-email'], env);
    expect(badEmail.stderr).toContain('email: must be an email address');
    const nobody = await quipu(['users', 'reset-password', 'nobody@team.example'], env);
    expect(nobody.stderr).toContain('Dashboard user not found');
  });

  it('users add takes a role, list shows them, and set-role changes one', async () => {
    const { receiver_id } = JSON.parse((await quipu(['merchants', 'create', '--name', 'Roles', '--email', 'boss@roles.example', '--json'], env)).stdout);
    const viewer = JSON.parse(
      (await quipu(['users', 'add', String(receiver_id), '--email', 'auditor@roles.example', '--role', 'viewer', '--json'], env)).stdout,
    );
    expect(viewer).toMatchObject({ email: 'auditor@roles.example', role: 'viewer' });
    const list = async () => JSON.parse((await quipu(['users', 'list', String(receiver_id), '--json'], env)).stdout);
    expect(await list()).toEqual({
      users: [
        { email: 'auditor@roles.example', role: 'viewer', two_factor: false, disabled: false },
        { email: 'boss@roles.example', role: 'owner', two_factor: false, disabled: false },
      ],
    });

    const changed = await quipu(['users', 'set-role', 'Auditor@roles.example', 'developer', '--json'], env);
    expect(JSON.parse(changed.stdout)).toEqual({ email: 'auditor@roles.example', role: 'developer' });
    expect((await list()).users).toContainEqual({ email: 'auditor@roles.example', role: 'developer', two_factor: false, disabled: false });

    const badRole = await quipu(['users', 'set-role', 'auditor@roles.example', 'admin'], env);
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toContain('must be one of owner, developer, viewer');
    expect((await list()).users).toContainEqual({ email: 'auditor@roles.example', role: 'developer', two_factor: false, disabled: false });
    expect((await quipu(['users', 'add', String(receiver_id), '--email', 'x@roles.example', '--role', 'root'], env)).stderr).toContain(
      'must be one of owner, developer, viewer',
    );
  });

  it('two-factor-enrol prints the secret, its otpauth address and ten recovery codes once; two-factor-reset removes them', async () => {
    const { receiver_id } = JSON.parse((await quipu(['merchants', 'create', '--name', 'Second', '--email', 'boss@second.example', '--json'], env)).stdout);
    const enrolled = JSON.parse((await quipu(['users', 'two-factor-enrol', 'Boss@second.example', '--json'], env)).stdout);
    expect(enrolled).toEqual({
      email: 'boss@second.example',
      secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
      otpauth_uri: expect.stringMatching(
        /^otpauth:\/\/totp\/Quipu:boss%40second\.example\?issuer=Quipu&secret=[A-Z2-7]{32}&algorithm=SHA1&digits=6&period=30$/,
      ),
      recovery_codes: expect.arrayContaining([expect.stringMatching(/^[0-9a-z]{6}-[0-9a-z]{6}-[0-9a-z]{6}-[0-9a-z]{6}$/)]),
    });
    expect(enrolled.recovery_codes).toHaveLength(10);
    const twoFactor = async () => JSON.parse((await quipu(['users', 'list', String(receiver_id), '--json'], env)).stdout).users[0].two_factor;
    expect(await twoFactor()).toBe(true);
    expect(JSON.parse((await quipu(['users', 'two-factor-reset', 'boss@second.example', '--json'], env)).stdout)).toEqual({
      email: 'boss@second.example',
      two_factor: false,
    });
    expect(await twoFactor()).toBe(false);
    expect((await quipu(['users', 'two-factor-enrol', 'nobody@second.example'], env)).stderr).toContain('Dashboard user not found');
  });

  it('disable ends every session at once and refuses the sign-in as a wrong password; enable gives it back; remove deletes the user; each audited', async () => {
    const { receiver_id, email, password } = JSON.parse(
      (await quipu(['merchants', 'create', '--name', 'Leavers', '--email', 'boss@leavers.example', '--json'], env)).stdout,
    );
    const clerk = JSON.parse((await quipu(['users', 'add', String(receiver_id), '--email', 'clerk@leavers.example', '--json'], env)).stdout);
    const session = await signedIn(clerk.email, clerk.password);
    expect(JSON.parse((await quipu(['users', 'disable', 'Clerk@leavers.example', '--json'], env)).stdout)).toEqual({
      email: 'clerk@leavers.example',
      disabled: true,
      sessions_ended: 1,
    });
    expect((await session.get('/dashboard/settings')).location).toBe('/dashboard/sign-in');
    expect(await signInStatus(clerk.email, clerk.password)).toBe(401);
    expect(await signInStatus(email, password)).toBe(303);
    const listed = JSON.parse((await quipu(['users', 'list', String(receiver_id), '--json'], env)).stdout).users;
    expect(listed).toContainEqual({ email: 'clerk@leavers.example', role: 'owner', two_factor: false, disabled: true });

    expect(JSON.parse((await quipu(['users', 'enable', 'clerk@leavers.example', '--json'], env)).stdout)).toEqual({
      email: 'clerk@leavers.example',
      disabled: false,
      sessions_ended: 0,
    });
    expect(await signInStatus(clerk.email, clerk.password)).toBe(303);

    expect(JSON.parse((await quipu(['users', 'remove', 'clerk@leavers.example', '--json'], env)).stdout)).toEqual({
      email: 'clerk@leavers.example',
      removed: true,
    });
    expect(await signInStatus(clerk.email, clerk.password)).toBe(401);
    expect(JSON.parse((await quipu(['users', 'list', String(receiver_id), '--json'], env)).stdout).users.map((u: { email: string }) => u.email)).toEqual([
      'boss@leavers.example',
    ]);
    expect((await quipu(['users', 'disable', 'clerk@leavers.example'], env)).stderr).toContain('Dashboard user not found');

    const audited = (await quipu(['audit', 'export'], env)).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; target: string; outcome: string });
    const commands = audited
      .filter((r) => r.action === 'cli.command' && r.target.toLowerCase().includes('clerk@leavers.example'))
      .map((r) => [r.target, r.outcome]);
    expect(commands).toEqual(
      expect.arrayContaining([
        ['users disable Clerk@leavers.example', 'ok'],
        ['users enable clerk@leavers.example', 'ok'],
        ['users remove clerk@leavers.example', 'ok'],
        ['users disable clerk@leavers.example', 'refused'],
      ]),
    );
  });

  it("end-sessions ends one user's sessions, or with --all every user's, changing nothing else", async () => {
    const { email, password } = JSON.parse((await quipu(['merchants', 'create', '--name', 'Ends', '--email', 'boss@ends.example', '--json'], env)).stdout);
    const other = JSON.parse((await quipu(['merchants', 'create', '--name', 'Others', '--email', 'boss@others.example', '--json'], env)).stdout);
    const [mine, theirs] = [await signedIn(email, password), await signedIn(other.email, other.password)];
    expect(JSON.parse((await quipu(['users', 'end-sessions', 'boss@ends.example', '--json'], env)).stdout)).toEqual({
      email: 'boss@ends.example',
      sessions_ended: 1,
    });
    expect((await mine.get('/dashboard/settings')).location).toBe('/dashboard/sign-in');
    expect((await theirs.get('/dashboard/settings')).status).toBe(200);
    expect(await signInStatus(email, password)).toBe(303);

    const neither = await quipu(['users', 'end-sessions'], env);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give either an email or --all');
    const all = JSON.parse((await quipu(['users', 'end-sessions', '--all', '--json'], env)).stdout);
    expect(all.sessions_ended).toBeGreaterThanOrEqual(2);
    expect((await theirs.get('/dashboard/settings')).location).toBe('/dashboard/sign-in');
  });

  it('a generated password is replaced at its first sign-in before any other page opens', async () => {
    const { email, password } = JSON.parse((await quipu(['merchants', 'create', '--name', 'Firsts', '--email', 'boss@firsts.example', '--json'], env)).stdout);
    const session = await signedIn(email, password);
    expect((await session.get('/dashboard')).location).toBe('/dashboard/settings');
    const page = await session.get('/dashboard/settings');
    expect(page.html).toContain('id="password-due"');
    const changed = await session.post('/dashboard/settings/password', { _csrf: csrfOf(page), current: password, next: 'Heron-Basalt-Cedar-31' });
    expect(changed.status).toBe(303);
    expect((await session.get('/dashboard')).status).toBe(200);
  });
});
