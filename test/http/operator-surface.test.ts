// The operator's surface as an attacker meets it, on both databases: a short OPERATOR_TOKEN is
// refused at start; wrong tokens are slowed per address with growing delays shared through the
// database (429 with Retry-After), never the operator calling from elsewhere; every call is logged
// with its caller; /metrics answers only to the token on a production installation. Also the
// smaller holes found beside it: URLs with control characters refused at create, and the
// installation's developer clock bounded.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig, MIN_OPERATOR_TOKEN_LENGTH } from '../../src/config.js';
import { SIGN_IN_THROTTLES } from '../../src/domain/sign-in-throttle.js';
import { call, client } from '../helpers/http.js';
import { logLines, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS } from '../helpers/production.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const TOKEN = 'operator-token-for-the-operator-surface-tests';
let server: TestServer;
let account: TestAccount;
let addressCount = 0;

beforeAll(async () => {
  server = await startTestServer({ OPERATOR_TOKEN: TOKEN, TRUST_PROXY: '127.0.0.1', MAX_CONNECTIONS_PER_ADDRESS: '0' });
  account = await server.account();
});
afterAll(async () => server?.close());

const newAddress = () => `203.0.113.${++addressCount}`;
const asOperator = (token: string, address: string) =>
  call(server.baseUrl, 'GET', '/operator/v1/credits', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address } });

describe('OPERATOR_TOKEN', () => {
  it(`is refused at start when shorter than ${MIN_OPERATOR_TOKEN_LENGTH} characters, in any mode`, () => {
    expect(() => loadConfig({ OPERATOR_TOKEN: 'x' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...PRODUCTION_SETTINGS, OPERATOR_TOKEN: 'a'.repeat(MIN_OPERATOR_TOKEN_LENGTH - 1) })).toThrow(/at least 32 characters/);
    expect(loadConfig({ ...PRODUCTION_SETTINGS, OPERATOR_TOKEN: 'a'.repeat(MIN_OPERATOR_TOKEN_LENGTH) }).operatorToken).toHaveLength(MIN_OPERATOR_TOKEN_LENGTH);
    expect(loadConfig({}).operatorToken).toBeUndefined();
  });

  it('wrong tokens from one address are slowed past the free ones, even the right one then waits; another address is not held back', async () => {
    // Time stands still in the server (which shares this process), so a loaded machine cannot let the first delay run out before the right token comes.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const guesser = newAddress();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => asOperator(`guess-${i}`.padEnd(40, 'x'), guesser)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(SIGN_IN_THROTTLES.operator.free);
      expect(statuses.filter((s) => s === 429)).toHaveLength(30 - SIGN_IN_THROTTLES.operator.free);
      const slowed = await asOperator(TOKEN, guesser);
      expect(slowed.status).toBe(429);
      expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await asOperator(TOKEN, newAddress())).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('every operator call', () => {
  const processes = withServerProcesses();

  it('is written to the log with its caller and outcome, refused or not', async () => {
    const { database, started } = processes;
    const quipu = await serveOnFreePort(
      { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', RUN_WORKER: 'false', OPERATOR_TOKEN: TOKEN },
      started,
    );
    await quipu.waitFor(/API reference/);
    for (const token of [TOKEN, 'a-wrong-token-of-a-proper-length-000000'])
      await call(quipu.baseUrl, 'GET', '/operator/v1/credits', { headers: { authorization: `Bearer ${token}` } });
    const calls = () => logLines(quipu).filter((line) => line.msg === 'operator call');
    await expect.poll(calls, { timeout: 5_000 }).toHaveLength(2);
    expect(calls().map((line) => [line.status, line.address, line.url])).toEqual([
      [200, '127.0.0.1', '/operator/v1/credits'],
      [401, '127.0.0.1', '/operator/v1/credits'],
    ]);
    expect(quipu.output()).not.toContain(TOKEN);
  }, 60_000);
});

describe('/metrics', () => {
  it('is public in developer mode', async () => {
    const res = await fetch(`${server.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('quipu_http_request_duration_seconds');
  });

  it('answers only to the operator token on a production installation', async () => {
    const production = await startTestServer({ ...PRODUCTION_SETTINGS, OPERATOR_TOKEN: TOKEN });
    try {
      expect((await fetch(`${production.baseUrl}/metrics`)).status).toBe(401);
      expect((await fetch(`${production.baseUrl}/metrics`, { headers: { authorization: 'Bearer not-the-operator-token-at-all-no' } })).status).toBe(401);
      const scraped = await fetch(`${production.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('quipu_http_request_duration_seconds');
    } finally {
      await production.close();
    }
  });
});

describe('smaller holes', () => {
  it.each(['return_url', 'cancel_url', 'notify_url'])(
    'a %s with a line break or another control character is a 400 naming it, nothing created',
    async (field) => {
      const api = client(server.baseUrl, account.api_key);
      for (const url of [
        'https://shop.example/ok\r\nSet-Cookie: a=b',
        'https://shop.example/o\nk',
        'https://shop.example/\tok',
        'https://shop.example/\u007fok',
      ]) {
        const res = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x', [field]: url });
        expect(res.status, url).toBe(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
      }
    },
  );

  it('the developer clock cannot be moved more than ten years ahead of real time', async () => {
    const sandbox = client(server.baseUrl, account.api_key);
    // One move is at most 3650 days; moves add up, and the sum is what is bounded.
    expect((await sandbox.post('/sandbox/clock', { advance: '3000d' })).status).toBe(200);
    const far = await sandbox.post('/sandbox/clock', { advance: '3000d' });
    expect(far.status).toBe(400);
    expect(far.body.errors).toEqual([{ field: 'advance', message: expect.stringContaining('within 10 years') }]);
    const farTo = await sandbox.post('/sandbox/clock', { to: '9999-01-01T00:00:00Z' });
    expect(farTo.status).toBe(400);
    expect(farTo.body.errors).toEqual([{ field: 'to', message: expect.stringContaining('within 10 years') }]);
    expect((await sandbox.get('/sandbox/clock')).body.offset_ms).toBe(3000 * 86_400_000);
    expect((await sandbox.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'still created' })).status).toBe(200);
    expect((await sandbox.post('/sandbox/clock/reset')).status).toBe(200);
  });
});
