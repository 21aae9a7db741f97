// API rate limits: past API_RATE_LIMIT requests a second an account is answered 429 with
// Retry-After in the API's error shape, on v3 and v2 alike, however the path is spelled (the route
// that answers decides, not the URL's text), while another account, the payer pages and the
// developer-mode default (no limit) are untouched.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { call, client } from '../helpers/http.js';
import { PRODUCTION_SETTINGS } from '../helpers/production.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';

const LIMIT = 5;
let other: TestAccount;

const setup = useTestServer({ API_RATE_LIMIT: String(LIMIT) });
beforeAll(async () => {
  other = await setup.server.account();
});

/** LIMIT × 3 requests at once of a new account (the i-th: its method, path and body), counted by the status of their answers. */
async function burstOfNewAccount(request: (i: number) => [method: string, path: string, body?: object]): Promise<Record<number, number>> {
  const account = await setup.server.account();
  const answers = await Promise.all(
    Array.from({ length: LIMIT * 3 }, (_, i) => {
      const [method, path, body] = request(i);
      return call(setup.server.baseUrl, method, path, { apiKey: account.api_key, body });
    }),
  );
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('API_RATE_LIMIT', () => {
  // A burst is answered over a few seconds on a loaded machine, and the limit's window is one: the
  // clock stands still during each burst, so what the test sees is the count, not the timing.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is off in developer mode and 100 a second on a production installation unless set', () => {
    expect(loadConfig({}).apiRateLimit).toBe(0);
    expect(loadConfig(PRODUCTION_SETTINGS).apiRateLimit).toBe(100);
    expect(loadConfig({ ...PRODUCTION_SETTINGS, API_RATE_LIMIT: '0' }).apiRateLimit).toBe(0);
  });

  it('answers an account past its limit 429 with Retry-After, in the error shape of v3 and v2; another account is not held back', async () => {
    const answers = await Promise.all(
      Array.from({ length: LIMIT * 3 }, (_, i) => call(setup.server.baseUrl, 'GET', i % 2 ? '/v3/banks' : '/2.0/banks', { apiKey: setup.account.api_key })),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200).length).toBeLessThanOrEqual(LIMIT);
    expect(limited.length).toBeGreaterThanOrEqual(LIMIT * 2);
    for (const answer of limited) {
      expect(answer.body).toMatchObject({ status: 429, message: `Rate limit exceeded: at most ${LIMIT} requests a second; try again in 1 s` });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // Within the limit an answer carries no header of it.
    for (const answer of answers.filter((a) => a.status === 200)) expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    expect((await client(setup.server.baseUrl, other.api_key).get('/v3/banks')).status).toBe(200);
  });

  it('counts a request by the route that answers it, however its path is spelled', async () => {
    const paths = ['/v%33/banks', '/%76%33/banks', '/v3/b%61nks', '/2.0/b%61nks', '/api/2.0/b%61nks'];
    expect(await burstOfNewAccount((i) => ['GET', paths[i % paths.length]!])).toEqual({ 200: LIMIT, 429: LIMIT * 2 });
  });

  it('counts invalid requests too: they are refused by validation after they are counted', async () => {
    expect(await burstOfNewAccount(() => ['POST', '/v3/payments', { amount: 'many' }])).toEqual({ 400: LIMIT, 429: LIMIT * 2 });
  });

  it('counts the sandbox API spelled with escapes too (POST /s%61ndbox/clock)', async () => {
    expect(await burstOfNewAccount(() => ['POST', '/s%61ndbox/clock', { advance: '1h' }])).toEqual({ 200: LIMIT, 429: LIMIT * 2 });
  });

  it('does not count the payer pages', async () => {
    const created = await client(setup.server.baseUrl, other.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x' });
    expect(created.status).toBe(200);
    const pages = await Promise.all(Array.from({ length: LIMIT * 3 }, () => fetch(created.body.payment_url as string).then((res) => res.status)));
    expect(pages.every((status) => status === 200)).toBe(true);
  });
});
