// Rotating credentials without downtime: an API key or receiver secret rotated with a grace period
// keeps working beside the new one until the period ends (on the wall clock), and not a moment
// after; without one it stops at once; a second rotation ends the first's grace; a grace beyond
// thirty days is refused. The dashboard offers the periods, the CLI takes any up to thirty days.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { client } from '../helpers/http.js';
import { basicAuth, formPost } from '../helpers/oauth.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { v2Client } from '../helpers/v2-clients.js';

const HOUR = 3_600_000;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());
afterEach(() => {
  vi.useRealTimers();
});

const banks = async (apiKey: string) => (await client(server.baseUrl, apiKey).get('/v3/banks')).status;
const signedBanks = async (receiverId: number, secret: string) =>
  (
    await v2Client(
      'php',
      { receiver_id: receiverId, secret },
      { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' },
    ).request('GET', '/banks')
  ).status;
const token = async (receiverId: number, secret: string) =>
  (await formPost(server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, basicAuth({ receiver_id: receiverId, secret }))).status;

/** Every later wall-clock reading is `ms` ahead (the server runs in this process). */
function timePasses(ms: number): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + ms });
}

describe('the API key', () => {
  it('rotated from the dashboard with 24 hours of grace: both keys work, then only the new one', async () => {
    const account = await server.account();
    const owner = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: 'keys@rotation.test' });
    const session = new PayerSession(server.baseUrl);
    await session.post('/dashboard/sign-in', { _csrf: csrfOf(await session.get('/dashboard/sign-in')), email: owner.email, password: owner.password });
    const page = await session.get('/dashboard/settings');
    expect(page.html).toContain('<option value="86400000">24 horas</option>');
    const rotated = await session.post('/dashboard/settings/rotate-key', { _csrf: csrfOf(page), confirm: 'yes', grace: '86400000' });
    expect(rotated.status).toBe(200);
    const newKey = /id="api-key">([0-9a-f-]{36})</.exec(rotated.html)![1]!;
    expect(newKey).not.toBe(account.api_key);
    expect([await banks(account.api_key), await banks(newKey), await banks(account.api_key)]).toEqual([200, 200, 200]);
    timePasses(24 * HOUR + 1_000);
    expect([await banks(account.api_key), await banks(newKey)]).toEqual([401, 200]);
  });

  it('rotated without grace stops at once; a second rotation ends the first one’s grace', async () => {
    const account = await server.account();
    const { apiKey: second } = await updateMerchant(server.ctx, account.receiver_id, { rotateApiKey: true, graceMs: HOUR });
    expect(await banks(account.api_key)).toBe(200);
    const { apiKey: third } = await updateMerchant(server.ctx, account.receiver_id, { rotateApiKey: true });
    expect([await banks(account.api_key), await banks(second!), await banks(third!)]).toEqual([401, 401, 200]);
  });

  it('refuses a grace beyond thirty days, and changes nothing', async () => {
    const account = await server.account();
    await expect(updateMerchant(server.ctx, account.receiver_id, { rotateApiKey: true, graceMs: 31 * 24 * HOUR })).rejects.toMatchObject({
      kind: 'validation',
      fields: [{ field: 'grace' }],
    });
    expect(await banks(account.api_key)).toBe(200);
  });
});

describe('the receiver secret', () => {
  async function rotated(account: TestAccount, graceMs: number): Promise<string> {
    const { merchant } = await updateMerchant(server.ctx, account.receiver_id, { rotateSecret: true, graceMs });
    expect(merchant.secret).not.toBe(account.secret);
    return merchant.secret;
  }

  it('rotated with an hour of grace: v2 signatures and OAuth clients with either secret, then only the new one', async () => {
    const account = await server.account();
    const fresh = await rotated(account, HOUR);
    expect([await signedBanks(account.receiver_id, account.secret), await signedBanks(account.receiver_id, fresh)]).toEqual([200, 200]);
    expect([await token(account.receiver_id, account.secret), await token(account.receiver_id, fresh)]).toEqual([200, 200]);
    timePasses(HOUR + 1_000);
    expect([await signedBanks(account.receiver_id, account.secret), await signedBanks(account.receiver_id, fresh)]).toEqual([403, 200]);
    expect([await token(account.receiver_id, account.secret), await token(account.receiver_id, fresh)]).toEqual([401, 200]);
  });

  it('rotated without grace: the old secret signs nothing from then on', async () => {
    const account = await server.account();
    const fresh = await rotated(account, 0);
    expect([await signedBanks(account.receiver_id, account.secret), await signedBanks(account.receiver_id, fresh)]).toEqual([403, 200]);
    expect(await token(account.receiver_id, account.secret)).toBe(401);
  });
});
