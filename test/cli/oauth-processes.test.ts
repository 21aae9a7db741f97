// The authorization server across processes sharing one database: a revocation (through
// /oauth2/revoke, a replayed code or a credential change) reaches the other server process within
// one second (at the default INVALIDATION_POLL_MS), a process answers
// bearer requests from its caches and learns of revocations only through the invalidation feed,
// `quipu keys rotate` in a third process changes the signing key without invalidating issued tokens,
// and `quipu merchants update --redirect-uri` registers the URIs the authorization endpoint accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOKED_TOPIC } from '../../src/app/bearer-verifier.js';
import { call, client } from '../helpers/http.js';
import {
  authorizeParams,
  basicAuth,
  clientCredentialsToken,
  decodeJwtPart,
  formPost,
  PageClient,
  redirectParams,
  registerRedirectUris,
} from '../helpers/oauth.js';
import { freePort, quipu, type ServerProcess, startServerProcess, waitForHttp } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let second: ServerProcess;
let secondUrl: string;
let env: Record<string, string>;
let account: TestAccount;
let paymentId: string;

const CALLBACK = 'https://client.example/callback';

beforeAll(async () => {
  // The default poll interval, so the one-second claim is tested as shipped.
  server = await startTestServer({ INVALIDATION_POLL_MS: '500' });
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn' };
  const port = await freePort();
  secondUrl = `http://127.0.0.1:${port}`;
  // The same public base URL: both processes are one issuer behind a load balancer.
  second = startServerProcess({
    ...env,
    PORT: String(port),
    PUBLIC_BASE_URL: server.baseUrl,
    DEMO_ACCOUNT: 'false',
    RUN_WORKER: 'false',
    INVALIDATION_POLL_MS: '500',
  });
  await waitForHttp(`${secondUrl}/readyz`);
  account = await server.account();
  await registerRedirectUris(server, account, [CALLBACK]);
  paymentId = (await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Two processes' })).body.payment_id;
});
afterAll(async () => {
  await second?.stop();
  await server?.close();
});

const getPayment = (base: string, token: string) => call(base, 'GET', `/v3/payments/${paymentId}`, { headers: { authorization: `Bearer ${token}` } });
const statusAt = async (base: string, token: string) => (await getPayment(base, token)).status;
const jtiOf = (token: string) => decodeJwtPart(token, 1).jti as string;
// The one-second promise, polled: the bound is what is asserted, not how soon it happens.
const WITHIN_ONE_SECOND = { timeout: 1000, interval: 50 };

/** A code from a flow run through the first process's pages. */
async function codeFlow(): Promise<string> {
  const done = await new PageClient(server.baseUrl).runFlow(authorizeParams(account, CALLBACK));
  return redirectParams(done.location).code!;
}
/** The code's exchange at the token endpoint of the process at `base`. */
const exchange = (base: string, code: string) =>
  formPost(base, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, basicAuth(account));

/** A token both processes have verified and cached. */
async function acceptedEverywhere(token: string): Promise<string> {
  expect(await statusAt(server.baseUrl, token)).toBe(200);
  expect(await statusAt(secondUrl, token)).toBe(200);
  return token;
}

describe('two server processes on one database', () => {
  it('accepts a token issued by the other process, and stops within one second of its revocation there', async () => {
    const token = await clientCredentialsToken(server, account);
    expect((await getPayment(secondUrl, token)).status).toBe(200);
    expect((await formPost(server.baseUrl, '/oauth2/revoke', { token }, basicAuth(account))).status).toBe(200);
    expect((await getPayment(server.baseUrl, token)).status).toBe(401);
    await expect.poll(() => statusAt(secondUrl, token), WITHIN_ONE_SECOND).toBe(401);
  });

  it('stops a token in the first process within one second of its code being replayed in the second', async () => {
    const code = await codeFlow();
    const issued = await exchange(server.baseUrl, code);
    expect(issued.status).toBe(200);
    const token = await acceptedEverywhere(issued.body.access_token);
    const replayed = await exchange(secondUrl, code);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');
    expect(await statusAt(secondUrl, token)).toBe(401);
    await expect.poll(() => statusAt(server.baseUrl, token), WITHIN_ONE_SECOND).toBe(401);
  });

  it('stops a token in the second process within one second of a credential change reported to the first', async () => {
    const token = await acceptedEverywhere((await exchange(server.baseUrl, await codeFlow())).body.access_token);
    const change = await call(server.baseUrl, 'POST', '/sandbox/institutions/Bawdf/users/11.111.111-1/credential-change', { apiKey: account.api_key });
    expect(change.status).toBe(200);
    expect(change.body.revoked_tokens).toBeGreaterThanOrEqual(1);
    expect(await statusAt(server.baseUrl, token)).toBe(401);
    await expect.poll(() => statusAt(secondUrl, token), WITHIN_ONE_SECOND).toBe(401);
  });

  it('answers a verified token from its caches while the revocation list is unchanged, and follows the feed', async () => {
    const [kept, marker] = [await clientCredentialsToken(server, account), await clientCredentialsToken(server, account)];
    expect(await statusAt(secondUrl, kept)).toBe(200);
    expect(await statusAt(secondUrl, marker)).toBe(200);
    // The row says revoked, but nothing was appended to the feed: a process that read the row on
    // every request would refuse the token from now on.
    await server.ctx.db.updateTable('oauth_tokens').set({ revoked_at: Date.now() }).where('jti', '=', jtiOf(kept)).execute();
    // A revocation through the feed, made after that change: once the second process refuses it, it
    // has read the feed past the silent change, and still accepts the token it had verified.
    expect((await formPost(server.baseUrl, '/oauth2/revoke', { token: marker }, basicAuth(account))).status).toBe(200);
    await expect.poll(() => statusAt(secondUrl, marker), WITHIN_ONE_SECOND).toBe(401);
    expect(await statusAt(secondUrl, kept)).toBe(200);
    // The feed's own database path (what another process's revocation writes) reaches it too.
    await server.ctx.db
      .insertInto('invalidations')
      .values({ topic: REVOKED_TOPIC, item: jtiOf(kept), created_at: Date.now() })
      .execute();
    await expect.poll(() => statusAt(secondUrl, kept), WITHIN_ONE_SECOND).toBe(401);
  });

  it('rotates keys from the CLI without invalidating issued tokens; new tokens carry the new kid', async () => {
    const old = await clientCredentialsToken(server, account);
    const oldKid = decodeJwtPart(old, 0).kid;
    const rotated = await quipu(['keys', 'rotate', '--json'], env);
    expect(rotated.code).toBe(0);
    const { kid, retired } = JSON.parse(rotated.stdout);
    expect(retired).toEqual([oldKid]);
    // Read the shared feed now instead of waiting for the next poll.
    await server.ctx.feed.poll();
    const fresh = await clientCredentialsToken(server, account);
    expect(decodeJwtPart(fresh, 0).kid).toBe(kid);
    for (const base of [server.baseUrl, secondUrl]) {
      expect((await getPayment(base, old)).status).toBe(200);
      expect((await getPayment(base, fresh)).status).toBe(200);
    }
    const listed = JSON.parse((await quipu(['keys', 'list', '--json'], env)).stdout);
    expect(listed.map((k: { kid: string }) => k.kid)).toEqual([kid, oldKid]);
    expect(listed[1].retired_at).not.toBeNull();
  });
});

describe('quipu merchants update --redirect-uri', () => {
  it('registers redirect URIs (repeatable) that the authorization endpoint then accepts, and removes them', async () => {
    const id = String(account.receiver_id);
    const set = await quipu(['merchants', 'update', id, '--redirect-uri', 'https://shop.example/cb', '--redirect-uri', 'com.shop.app:/oauth', '--json'], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).redirect_uris).toEqual(['com.shop.app:/oauth', 'https://shop.example/cb']);
    const accepted = await new PageClient(server.baseUrl).authorize(authorizeParams(account, 'https://shop.example/cb'));
    expect(accepted.location).toMatch(/^\/oauth2\/flows\//);

    const bad = await quipu(['merchants', 'update', id, '--redirect-uri', 'https://shop.example/cb#frag'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('fragment');
    const script = await quipu(['merchants', 'update', id, '--redirect-uri', 'javascript:alert(1)'], env);
    expect(script.code).not.toBe(0);

    const removed = await quipu(['merchants', 'update', id, '--no-redirect-uri', '--json'], env);
    expect(JSON.parse(removed.stdout).redirect_uris).toEqual([]);
    const refused = await new PageClient(server.baseUrl).authorize(authorizeParams(account, 'https://shop.example/cb'));
    expect(refused.status).toBe(400);
    expect(refused.location).toBeNull();
  });
});
