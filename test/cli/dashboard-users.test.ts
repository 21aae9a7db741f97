// Dashboard sign-ins from the command line: `quipu merchants create` prints the account's first
// user beside its API credentials, `quipu users add|list|set-role|reset-password` manage the others
// and their roles, and `npm start`'s demo account prints its own; each password signs in to a
// running server's dashboard.
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
    expect(clerk).toEqual({ email: 'clerk@team.example', password: expect.stringMatching(/^[A-Za-z0-9]{20}$/), role: 'owner' });
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
    const viewer = JSON.parse((await quipu(['users', 'add', String(receiver_id), '--email', 'auditor@roles.example', '--role', 'viewer', '--json'], env)).stdout);
    expect(viewer).toMatchObject({ email: 'auditor@roles.example', role: 'viewer' });
    const list = async () => JSON.parse((await quipu(['users', 'list', String(receiver_id), '--json'], env)).stdout);
    expect(await list()).toEqual({ users: [{ email: 'auditor@roles.example', role: 'viewer', two_factor: false }, { email: 'boss@roles.example', role: 'owner', two_factor: false }] });

    const changed = await quipu(['users', 'set-role', 'Auditor@roles.example', 'developer', '--json'], env);
    expect(JSON.parse(changed.stdout)).toEqual({ email: 'auditor@roles.example', role: 'developer' });
    expect((await list()).users).toContainEqual({ email: 'auditor@roles.example', role: 'developer', two_factor: false });

    const badRole = await quipu(['users', 'set-role', 'auditor@roles.example', 'admin'], env);
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toContain('must be one of owner, developer, viewer');
    expect((await list()).users).toContainEqual({ email: 'auditor@roles.example', role: 'developer', two_factor: false });
    expect((await quipu(['users', 'add', String(receiver_id), '--email', 'x@roles.example', '--role', 'root'], env)).stderr).toContain('must be one of owner, developer, viewer');
  });

  it('two-factor-enrol prints the secret, its otpauth address and ten recovery codes once; two-factor-reset removes them', async () => {
    const { receiver_id } = JSON.parse((await quipu(['merchants', 'create', '--name', 'Second', '--email', 'boss@second.example', '--json'], env)).stdout);
    const enrolled = JSON.parse((await quipu(['users', 'two-factor-enrol', 'Boss@second.example', '--json'], env)).stdout);
    expect(enrolled).toEqual({
      email: 'boss@second.example',
      secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
      otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\/Quipu:boss%40second\.example\?issuer=Quipu&secret=[A-Z2-7]{32}&algorithm=SHA1&digits=6&period=30$/),
      recovery_codes: expect.arrayContaining([expect.stringMatching(/^[0-9a-z]{5}-[0-9a-z]{5}$/)]),
    });
    expect(enrolled.recovery_codes).toHaveLength(10);
    const twoFactor = async () => JSON.parse((await quipu(['users', 'list', String(receiver_id), '--json'], env)).stdout).users[0].two_factor;
    expect(await twoFactor()).toBe(true);
    expect(JSON.parse((await quipu(['users', 'two-factor-reset', 'boss@second.example', '--json'], env)).stdout)).toEqual({ email: 'boss@second.example', two_factor: false });
    expect(await twoFactor()).toBe(false);
    expect((await quipu(['users', 'two-factor-enrol', 'nobody@second.example'], env)).stderr).toContain('Dashboard user not found');
  });
});
