// Failed credentials counted per client address (src/domain/credential-failures.ts), attacked as
// the review did: wrong API keys in parallel, and wrong access tokens, v2 signatures and client
// secrets, each a failure; past the limit the address is answered 429 with Retry-After until its
// window closes, its right credentials too, while another address is not held back. A request
// without a credential guesses nothing and is not counted. Clients are told apart by
// X-Forwarded-For behind a trusted proxy (TRUST_PROXY), as behind a load balancer.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CREDENTIAL_FAILURE_LIMIT } from '../../src/domain/credential-failures.js';
import { call, type JsonResponse } from '../helpers/http.js';
import { basicAuth, clientCredentialsToken, FORM } from '../helpers/oauth.js';
import { serversClosedAfterAll, useTestServer } from '../helpers/server.js';
import { v2Client } from '../helpers/v2-clients.js';

const FREE = CREDENTIAL_FAILURE_LIMIT.count;

// A request rate no test here reaches: what is counted is the failures. Every request comes
// through one address, the proxy's: its connections are not capped here.
const setup = useTestServer({ API_RATE_LIMIT: '1000', TRUST_PROXY: '127.0.0.1', MAX_CONNECTIONS_PER_ADDRESS: '0' });
const startServer = serversClosedAfterAll();

let addressCount = 0;
/** A client address no other test of the file uses. */
const newAddress = () => `198.51.100.${++addressCount}`;

const count = (answers: JsonResponse[], status: number) => answers.filter((a) => a.status === status).length;

function banks(address: string, headers: Record<string, string>, path = '/v3/banks'): Promise<JsonResponse> {
  return call(setup.server.baseUrl, 'GET', path, { headers: { ...headers, 'x-forwarded-for': address } });
}

function token(address: string, authorization: string): Promise<JsonResponse> {
  return call(setup.server.baseUrl, 'POST', '/oauth2/token', {
    headers: { 'content-type': FORM, authorization, 'x-forwarded-for': address },
    rawBody: 'grant_type=client_credentials',
  });
}

function signedBanks(address: string, secret = setup.account.secret): Promise<JsonResponse> {
  const { server, account } = setup;
  const v2 = v2Client('php', { ...account, secret }, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });
  const prepared = v2.prepare('GET', '/banks');
  return v2.send({ ...prepared, headers: { ...prepared.headers, 'x-forwarded-for': address } });
}

function expectRefused(answer: JsonResponse): void {
  expect(answer.status).toBe(429);
  const wait = Number(answer.headers.get('retry-after'));
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(CREDENTIAL_FAILURE_LIMIT.windowMs / 1000);
}

describe('failed credentials', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it(`${FREE * 3} wrong API keys at once from one address: ${FREE} answered 401, the rest 429, its right key too; another address is let in`, async () => {
    const address = newAddress();
    const answers = await Promise.all(Array.from({ length: FREE * 3 }, () => banks(address, { 'x-api-key': randomUUID() })));
    expect(count(answers, 401)).toBe(FREE);
    expect(count(answers, 429)).toBe(FREE * 2);
    for (const answer of answers.filter((a) => a.status === 429)) {
      expectRefused(answer);
      expect(answer.body).toMatchObject({ status: 429, message: expect.stringContaining('Too many failed credentials') });
    }
    expectRefused(await banks(address, { 'x-api-key': setup.account.api_key }));
    expect((await banks(newAddress(), { 'x-api-key': setup.account.api_key })).status).toBe(200);
  });

  it('wrong access tokens, v2 signatures and client secrets count alike, and each kind is then refused, right or wrong', async () => {
    const address = newAddress();
    const bearer = await clientCredentialsToken(setup.server, setup.account);
    const wrongSecret = basicAuth({ receiver_id: setup.account.receiver_id, secret: 'not-the-secret' });
    const failures: JsonResponse[] = [];
    for (let i = 0; i < FREE / 4; i++) {
      failures.push(await banks(address, { 'x-api-key': randomUUID() }));
      failures.push(await banks(address, { authorization: `Bearer ${bearer}x` }));
      failures.push(await signedBanks(address, 'not-the-secret'));
      failures.push(await token(address, wrongSecret));
    }
    expect(failures.map((a) => a.status)).toEqual(Array.from({ length: FREE / 4 }, () => [401, 401, 403, 401]).flat());
    expectRefused(await banks(address, { 'x-api-key': setup.account.api_key }));
    expectRefused(await banks(address, { authorization: `Bearer ${bearer}` }));
    expectRefused(await signedBanks(address));
    const refusedToken = await token(address, basicAuth(setup.account));
    expectRefused(refusedToken);
    expect(refusedToken.body).toMatchObject({ error: 'slow_down' });
    expectRefused(await token(address, wrongSecret));
  });

  it('lets the address in again once its window has closed', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const address = newAddress();
    for (let i = 0; i < FREE; i++) expect((await banks(address, { 'x-api-key': randomUUID() })).status).toBe(401);
    expectRefused(await banks(address, { 'x-api-key': setup.account.api_key }));
    vi.setSystemTime(Date.now() + CREDENTIAL_FAILURE_LIMIT.windowMs);
    expect((await banks(address, { 'x-api-key': setup.account.api_key })).status).toBe(200);
  });

  it('does not count a request without a credential', async () => {
    const address = newAddress();
    const answers = await Promise.all(Array.from({ length: FREE * 2 }, () => banks(address, {})));
    expect(count(answers, 401)).toBe(FREE * 2);
    expect((await banks(address, { 'x-api-key': setup.account.api_key })).status).toBe(200);
  });

  it('is off with the rate limits (API_RATE_LIMIT=0, the developer-mode default)', async () => {
    const unlimited = await startServer({});
    const answers = await Promise.all(Array.from({ length: FREE * 2 }, () => call(unlimited.baseUrl, 'GET', '/v3/banks', { apiKey: randomUUID() })));
    expect(count(answers, 401)).toBe(FREE * 2);
  });
});
