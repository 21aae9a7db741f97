// One rule for every list command, as real processes on a test server's database: the account
// --receiver names, else the only account there is, else a refusal naming the accounts to choose
// from. Accounts the sandbox made are left out of that choice unless --include-sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { quipu } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const LISTS = [
  ['payments', 'list'],
  ['notifications', 'list'],
  ['events', 'list'],
  ['emails', 'list'],
  ['subscriptions', 'list'],
];

let server: TestServer;
let env: Record<string, string>;
let shop: TestAccount;
let sandboxMade: { receiver_id: number; api_key: string };

async function createPayment(apiKey: string, subject: string): Promise<void> {
  expect((await client(server.baseUrl, apiKey).post('/v3/payments', { amount: 1000, currency: 'CLP', subject })).status).toBe(200);
}

const subjectsListed = async (args: string[]) => {
  const listed = await quipu(['payments', 'list', '--json', ...args], env);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout).items.map((p: { subject: string }) => p.subject);
};

beforeAll(async () => {
  server = await startTestServer();
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn' };
  shop = await server.account({ name: 'Shop' });
  await createPayment(shop.api_key, 'Shop order');
  const made = await quipu(['sandbox', 'create'], env);
  expect(made.code, made.stderr).toBe(0);
  sandboxMade = JSON.parse(made.stdout);
  await createPayment(sandboxMade.api_key, 'Sandbox order');
});
afterAll(async () => server?.close());

// Each command is a process of its own: generous time for a loaded machine.
describe('a list command', { timeout: 180_000 }, () => {
  it('lists the only account without --receiver, leaving out the accounts the sandbox made unless asked', async () => {
    for (const args of LISTS) {
      const listed = await quipu(args, env);
      expect(listed.code, `${args.join(' ')}: ${listed.stderr}`).toBe(0);
    }
    expect(await subjectsListed([])).toEqual(['Shop order']);
    expect(await subjectsListed(['--receiver', String(sandboxMade.receiver_id)])).toEqual(['Sandbox order']);
    const counted = await quipu(['payments', 'list', '--include-sandbox'], env);
    expect(counted.code).toBe(2);
    expect(counted.stderr).toContain(`quipu: name the account with --receiver <receiver_id> (accounts: ${shop.receiver_id}, ${sandboxMade.receiver_id})\n`);
  });

  it('of two accounts lists none until one is named, and the refusal names them', async () => {
    const second = await server.account({ name: 'Second shop' });
    for (const args of LISTS) {
      const refused = await quipu(args, env);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(
        `quipu: name the account with --receiver <receiver_id> (accounts: ${shop.receiver_id}, ${second.receiver_id}; 1 made by the sandbox left out without --include-sandbox)\n`,
      );
    }
    expect(await subjectsListed(['--receiver', String(shop.receiver_id)])).toEqual(['Shop order']);
    const unknown = await quipu(['events', 'list', '--receiver', '999999'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('quipu: Merchant not found');
  });
});
