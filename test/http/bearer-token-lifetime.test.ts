// Bearer tokens end with what gave them (security finding 39.1). On a production installation a
// token obtained with the receiver secret stops working when that secret is rotated: at once, or
// when the grace period given ends; rotating the API key, which obtains no token, leaves it working.
// A consent's token, whose code the secret redeemed, ends with the secret too. A merchant revokes
// every token of its account from the dashboard or the command line. And no token lives more than a
// year of real time, however far its account's clock ran ahead when it was issued.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { call, client } from '../helpers/http.js';
import { authorizeParams, basicAuth, decodeJwtPart, formPost, PageClient, redirectParams, registerRedirectUris } from '../helpers/oauth.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { quipu } from '../helpers/process.js';
import { CHOSEN_PASSWORD, serversClosedAfterAll, type TestAccount, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CALLBACK = 'https://client.example/callback';

const started = serversClosedAfterAll();
let production: TestServer;
let sandbox: TestServer;

beforeAll(async () => {
  [production, sandbox] = [await started({ SANDBOX: 'false' }), await started({})];
});
afterEach(() => {
  vi.useRealTimers();
});

/** Every later wall-clock reading is `ms` further ahead (the server runs in this process). */
function timePasses(ms: number): void {
  const now = Date.now() + ms;
  if (vi.isFakeTimers()) vi.setSystemTime(now);
  else vi.useFakeTimers({ toFake: ['Date'], now });
}

type Credentials = Pick<TestAccount, 'receiver_id' | 'secret'>;

/** The token endpoint's status and, when 200, the client_credentials token. */
async function tokenFor(server: TestServer, account: Credentials): Promise<{ status: number; token: string }> {
  const res = await formPost(server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, basicAuth(account));
  return { status: res.status, token: res.body?.access_token };
}

async function token(server: TestServer, account: Credentials): Promise<string> {
  const issued = await tokenFor(server, account);
  expect(issued.status).toBe(200);
  return issued.token;
}

/** What creating a payment with the bearer token answers. */
const payWith = async (server: TestServer, bearer: string) =>
  (
    await call(server.baseUrl, 'POST', '/v3/payments', {
      headers: { authorization: `Bearer ${bearer}` },
      body: { amount: 1000, currency: 'CLP', subject: 'Bearer' },
    })
  ).status;

const statusesOf = (server: TestServer, bearers: string[]) => Promise.all(bearers.map((bearer) => payWith(server, bearer)));

describe('a rotation of the receiver secret, on a production installation', () => {
  it('without grace, with the API key (quipu merchants update --rotate-api-key --rotate-secret): the old bearer token is refused with the old key and secret', async () => {
    const account = await production.account({ developer: false });
    const bearer = await token(production, account);
    expect(await payWith(production, bearer)).toBe(200);

    const env = { DATABASE_URL: production.database.url, DATA_DIR: production.database.dataDir, LOG_LEVEL: 'warn', SANDBOX: 'false' };
    const rotated = await quipu(['merchants', 'update', String(account.receiver_id), '--rotate-api-key', '--rotate-secret', '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const { secret, api_key } = JSON.parse(rotated.stdout);

    // The command is another process: the server hears of the rotation through the invalidation feed.
    await expect.poll(() => payWith(production, bearer), { timeout: 5_000 }).toBe(401);
    expect((await client(production.baseUrl, account.api_key).get('/v3/banks')).status).toBe(401);
    expect((await tokenFor(production, account)).status).toBe(401);
    expect(await payWith(production, await token(production, { receiver_id: account.receiver_id, secret }))).toBe(200);
    expect((await client(production.baseUrl, api_key).get('/v3/banks')).status).toBe(200);
  });

  it('with an hour of grace: the old secret’s tokens, old and new, work for the hour and not a moment after', async () => {
    const account = await production.account({ developer: false });
    const before = await token(production, account);
    const { merchant } = await updateMerchant(production.ctx, account.receiver_id, { rotateSecret: true, graceMs: HOUR });
    const fresh = { receiver_id: account.receiver_id, secret: merchant.secret };
    const duringGrace = await token(production, account);
    const ofTheNewSecret = await token(production, fresh);
    expect(await statusesOf(production, [before, duringGrace, ofTheNewSecret])).toEqual([200, 200, 200]);

    timePasses(HOUR + 1_000);
    expect(await statusesOf(production, [before, duringGrace, ofTheNewSecret])).toEqual([401, 401, 200]);
    expect(await payWith(production, await token(production, fresh))).toBe(200);
  });

  it('a second rotation ends the first one’s grace for its tokens too', async () => {
    const account = await production.account({ developer: false });
    const first = await token(production, account);
    const { merchant } = await updateMerchant(production.ctx, account.receiver_id, { rotateSecret: true, graceMs: HOUR });
    const second = await token(production, { receiver_id: account.receiver_id, secret: merchant.secret });
    await updateMerchant(production.ctx, account.receiver_id, { rotateSecret: true, graceMs: HOUR });
    expect(await statusesOf(production, [first, second])).toEqual([401, 200]);
  });

  it('of the API key alone leaves the tokens working: the key obtains none', async () => {
    const account = await production.account({ developer: false });
    const bearer = await token(production, account);
    await updateMerchant(production.ctx, account.receiver_id, { rotateApiKey: true });
    expect(await payWith(production, bearer)).toBe(200);
  });
});

describe('a consent’s token', () => {
  it('ends with the secret that redeemed its code', async () => {
    const account = await sandbox.account();
    await registerRedirectUris(sandbox, account, [CALLBACK]);
    const done = await new PageClient(sandbox.baseUrl).runFlow(authorizeParams(account, CALLBACK));
    const code = redirectParams(done.location).code!;
    const redeemed = await formPost(sandbox.baseUrl, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, basicAuth(account));
    expect(redeemed.status).toBe(200);
    const bearer = redeemed.body.access_token;
    expect(await payWith(sandbox, bearer)).toBe(200);
    await updateMerchant(sandbox.ctx, account.receiver_id, { rotateSecret: true });
    expect(await payWith(sandbox, bearer)).toBe(401);
  });
});

describe('the merchant revokes every token of its account', () => {
  it('from the dashboard’s settings, with a ticked confirmation, audited; another account’s tokens keep working', async () => {
    const [account, other] = [await sandbox.account(), await sandbox.account()];
    const bearers = [await token(sandbox, account), await token(sandbox, account)];
    const othersBearer = await token(sandbox, other);
    const owner = await addDashboardUser(sandbox.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: 'tokens@revocation.test' });
    const session = new PayerSession(sandbox.baseUrl);
    await session.post('/dashboard/sign-in', { _csrf: csrfOf(await session.get('/dashboard/sign-in')), email: owner.email, password: owner.password });
    const page = await session.get('/dashboard/settings');
    expect(page.html).toContain('id="revoke-tokens"');

    const unconfirmed = await session.post('/dashboard/settings/revoke-tokens', { _csrf: csrfOf(page) });
    expect(unconfirmed.status).toBe(400);
    expect(await statusesOf(sandbox, bearers)).toEqual([200, 200]);

    const revoked = await session.post('/dashboard/settings/revoke-tokens', { _csrf: csrfOf(page), confirm: 'yes' });
    expect(revoked.status).toBe(200);
    expect(revoked.html).toContain('Se revocaron 2 tokens de acceso.');
    expect(await statusesOf(sandbox, [...bearers, othersBearer])).toEqual([401, 401, 200]);
    // The secret still obtains tokens: revocation is not a rotation.
    expect(await payWith(sandbox, await token(sandbox, account))).toBe(200);
    const audited = () =>
      sandbox.ctx.db
        .selectFrom('audit_log')
        .select(['actor', 'outcome'])
        .where('action', '=', 'tokens.revoke')
        .where('receiver_id', '=', account.receiver_id)
        .orderBy('seq')
        .execute();
    await expect.poll(audited, { timeout: 5_000 }).toEqual([
      { actor: owner.email, outcome: 'refused' },
      { actor: owner.email, outcome: 'ok' },
    ]);
  });

  it('from the command line (quipu merchants revoke-tokens)', async () => {
    const account = await production.account({ developer: false });
    const bearer = await token(production, account);
    expect(await payWith(production, bearer)).toBe(200);
    const env = { DATABASE_URL: production.database.url, DATA_DIR: production.database.dataDir, LOG_LEVEL: 'warn', SANDBOX: 'false' };
    const revoked = await quipu(['merchants', 'revoke-tokens', String(account.receiver_id), '--json'], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ receiver_id: account.receiver_id, revoked_tokens: 1 });
    await expect.poll(() => payWith(production, bearer), { timeout: 5_000 }).toBe(401);

    const unknown = await quipu(['merchants', 'revoke-tokens', '999999999'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Merchant not found');
  });
});

describe('the longest life of a token', () => {
  it('is a year of real time, though it was issued on an account clock moved 3,650 days ahead and that clock was reset', async () => {
    const account = await sandbox.account();
    const api = client(sandbox.baseUrl, account.api_key);
    expect((await api.post('/sandbox/clock', { advance: '3650d' })).status).toBe(200);
    const bearer = await token(sandbox, account);
    // Its exp is a year after the moved clock's now: about eleven years of real time.
    expect(Number(decodeJwtPart(bearer, 1).exp) * 1000 - Date.now()).toBeGreaterThan(3_650 * DAY);
    expect((await api.post('/sandbox/clock/reset')).status).toBe(200);
    expect(await payWith(sandbox, bearer)).toBe(200);

    timePasses(364 * DAY);
    expect(await payWith(sandbox, bearer)).toBe(200);
    timePasses(DAY + 1_000);
    expect(await payWith(sandbox, bearer)).toBe(401);
    expect(await payWith(sandbox, await token(sandbox, account))).toBe(200);
  });
});
