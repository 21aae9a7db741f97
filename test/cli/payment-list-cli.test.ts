// `quipu payments list` as a real process on the database of a running test server: the JSON list's
// filters, answer and paging on the command line, one account's payments only, bad values named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { quipu } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let a: TestAccount;
let b: TestAccount;
let env: Record<string, string>;
const created: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  a = await server.account();
  b = await server.account();
  // The payment URLs in the answers are built from the public base URL: the server's.
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn', PUBLIC_BASE_URL: server.baseUrl };
  for (const [account, subject] of [
    [a, 'Pedido uno'],
    [a, 'Pedido dos'],
    [b, 'Pedido de otra cuenta'],
  ] as const) {
    const res = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 1990, currency: 'CLP', subject });
    created.push(res.body.payment_id);
    await client(server.baseUrl, account.api_key).post('/sandbox/clock', { advance: '1s' });
  }
});
afterAll(async () => server?.close());

const list = (...args: string[]) => quipu(['payments', 'list', '--receiver', String(a.receiver_id), ...args], env);

// Each command is a process of its own: generous time for a loaded machine.
describe('quipu payments list', { timeout: 120_000 }, () => {
  it('prints JSON as GET /quipu/v1/payments answers, a page at a time', async () => {
    const [uno, dos] = created;
    const first = await list('--limit', '1', '--json');
    expect(first.code).toBe(0);
    const page = JSON.parse(first.stdout);
    expect(page).toEqual((await client(server.baseUrl, a.api_key).get('/quipu/v1/payments?limit=1')).body);
    expect(page.items.map((p: { payment_id: string }) => p.payment_id)).toEqual([dos]);
    const second = JSON.parse((await list('--limit', '1', '--cursor', page.next_cursor, '--json')).stdout);
    expect(second).toMatchObject({ items: [{ payment_id: uno, subject: 'Pedido uno', amount: 1990 }], next_cursor: null });
  });

  it("filters and searches one account's payments, a line each", async () => {
    const [uno, dos] = created;
    const all = await list('--status', 'pending', '--q', 'PEDIDO', '--from', '2000-01-01');
    expect(all.code).toBe(0);
    const [header, ...lines] = all.stdout.trim().split('\n');
    expect(header).toMatch(/^ID +CREATED +STATUS +AMOUNT +SUBJECT$/);
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([dos, uno]);
    expect(lines[0]).toMatch(/pending\/pending\s+1990 CLP {2}Pedido dos$/);
    const paged = await list('--limit', '1');
    expect(paged.stdout).toMatch(/\nmore: --cursor \S+\n$/);
  });

  it('names every bad value and the unknown account, and exits with status 2', async () => {
    const bad = await list('--status', 'paid', '--limit', '500');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('\n  status: must be one of pending, verifying, done\n  limit: must be a whole number from 1 to 100');
    const nobody = await quipu(['payments', 'list', '--receiver', '1'], env);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toContain('quipu: Merchant not found');
  });
});
