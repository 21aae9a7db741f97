// What an account reads follows its own clock, and only its: two accounts side by side, one moved
// through POST /sandbox/clock, the other not: the iat and exp of its OAuth tokens (and when they stop
// working), the dates of its payments list, and the dashboard home's "today". The rules that act on
// an account's records (attempts, reminders, retries, mandates, debits, funds) are in
// account-clock-isolation.test.ts.
import { describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { client } from '../helpers/http.js';
import { basicAuth, decodeJwtPart, formPost } from '../helpers/oauth.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, useTestServer } from '../helpers/server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const setup = useTestServer();

type Api = ReturnType<typeof client>;
interface Account {
  receiver_id: number;
  secret: string;
  api_key: string;
  api: Api;
}

async function sandboxAccount(): Promise<Account> {
  const answer = await client(setup.server.baseUrl, '').post('/sandbox/accounts', {});
  expect(answer.status).toBe(200);
  return { ...answer.body, api: client(setup.server.baseUrl, answer.body.api_key) };
}

async function advance(account: Account, by: string): Promise<number> {
  const moved = await account.api.post('/sandbox/clock', { advance: by });
  expect(moved.status).toBe(200);
  return Date.parse(moved.body.now);
}

async function newPayment(account: Account): Promise<string> {
  const answer = await account.api.post('/v3/payments', { amount: 1500, currency: 'CLP', subject: 'Side by side' });
  expect(answer.status).toBe(200);
  return answer.body.payment_id;
}

/** A client_credentials token: the raw JWT and its claims. */
async function token(account: Account): Promise<{ jwt: string; iat: number; exp: number }> {
  const answer = await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, basicAuth(account));
  expect(answer.status).toBe(200);
  const claims = decodeJwtPart(answer.body.access_token, 1);
  return { jwt: answer.body.access_token, iat: Number(claims.iat) * 1000, exp: Number(claims.exp) * 1000 };
}

const withBearer = (jwt: string) => fetch(`${setup.server.baseUrl}/v3/banks`, { headers: { authorization: `Bearer ${jwt}` } }).then((r) => r.status);

/** A date in Chile, YYYY-MM-DD, as the payments list's `from` and `to` read one. */
const chileDay = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago' }).format(new Date(ms));

describe('what each account reads is on its own clock, side by side', () => {
  it("dates the moved account's tokens (iat, exp) on its clock, and ends them on it; the other's keep working", async () => {
    const [ahead, still] = [await sandboxAccount(), await sandboxAccount()];
    const [aheadBefore, stillBefore] = [await token(ahead), await token(still)];
    expect(aheadBefore.exp - aheadBefore.iat).toBe(stillBefore.exp - stillBefore.iat);
    const lifetime = aheadBefore.exp - aheadBefore.iat;

    // Moved past the lifetime of its first token: that token is over for the moved account only.
    const aheadNow = await advance(ahead, `${Math.ceil(lifetime / DAY) + 1}d`);
    expect(await withBearer(aheadBefore.jwt)).toBe(401);
    expect(await withBearer(stillBefore.jwt)).toBe(200);

    const [aheadAfter, stillAfter] = [await token(ahead), await token(still)];
    expect(Math.abs(aheadAfter.iat - aheadNow)).toBeLessThan(HOUR);
    expect(aheadAfter.exp - aheadAfter.iat).toBe(lifetime);
    expect(Math.abs(stillAfter.iat - Date.now())).toBeLessThan(HOUR);
    // A token issued on the clock ahead works at once, though its iat is in real time's future.
    expect(await withBearer(aheadAfter.jwt)).toBe(200);
    expect(await withBearer(stillAfter.jwt)).toBe(200);
  });

  it("lists the moved account's payments with its clock's dates, and filters its days on them", async () => {
    const [ahead, still] = [await sandboxAccount(), await sandboxAccount()];
    const [aheadEarlier, stillEarlier] = [await newPayment(ahead), await newPayment(still)];
    const aheadNow = await advance(ahead, '3d');
    const [aheadLater, stillLater] = [await newPayment(ahead), await newPayment(still)];
    // v3 shows a payment's creation time as its conciliation_date until it is paid.
    const list = async (account: Account, query = '') =>
      (await account.api.get(`/quipu/v1/payments${query}`)).body.items as { payment_id: string; conciliation_date: string }[];

    const aheadItems = await list(ahead);
    expect(aheadItems.map((p) => p.payment_id)).toEqual([aheadLater, aheadEarlier]);
    expect(Math.abs(Date.parse(aheadItems[0]!.conciliation_date) - aheadNow)).toBeLessThan(HOUR);
    expect(Math.abs(Date.parse(aheadItems[1]!.conciliation_date) - Date.now())).toBeLessThan(HOUR);
    const stillItems = await list(still);
    expect(stillItems.map((p) => p.payment_id)).toEqual([stillLater, stillEarlier]);
    expect(stillItems.every((p) => Math.abs(Date.parse(p.conciliation_date) - Date.now()) < HOUR)).toBe(true);

    // The moved account's "today" in Chile holds only what it created after the move.
    const today = `?from=${chileDay(aheadNow)}`;
    expect((await list(ahead, today)).map((p) => p.payment_id)).toEqual([aheadLater]);
    expect(await list(still, today)).toEqual([]);
  });

  it("counts on the dashboard home's today what the moved account created on its today, and again after a reset", async () => {
    const [ahead, still] = [await sandboxAccount(), await sandboxAccount()];
    const signIn = async (account: Account) => {
      const user = await addDashboardUser(setup.server.ctx, account.receiver_id, {
        email: `owner-${account.receiver_id}@shop.test`,
        password: CHOSEN_PASSWORD,
      });
      const session = new PayerSession(setup.server.baseUrl);
      const form = await session.get('/dashboard/sign-in');
      expect((await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email: user.email, password: CHOSEN_PASSWORD })).status).toBe(303);
      return session;
    };
    const [aheadSession, stillSession] = [await signIn(ahead), await signIn(still)];
    /** The "created" figures of the home's cards: today's and the last 30 days'. */
    const created = async (session: PayerSession) => {
      const home = await session.get('/dashboard');
      expect(home.status).toBe(200);
      const figure = (title: string) => Number(new RegExp(`<h3>${title} · CLP</h3>\\s*<dl><dt>[^<]*</dt><dd class="created">(\\d+)</dd>`).exec(home.html)?.[1]);
      return { today: figure('Hoy'), period: figure('Últimos 30 días') };
    };

    await newPayment(ahead);
    await newPayment(still);
    await advance(ahead, '2d');
    expect(await created(aheadSession)).toEqual({ today: 0, period: 1 });
    expect(await created(stillSession)).toEqual({ today: 1, period: 1 });

    await newPayment(ahead);
    expect(await created(aheadSession)).toEqual({ today: 1, period: 2 });
    expect(await created(stillSession)).toEqual({ today: 1, period: 1 });

    // Reset to real time, its records' dates come back with it: what it created on its today is
    // today's still, and what it created two days before is two days old.
    expect((await ahead.api.post('/sandbox/clock/reset')).status).toBe(200);
    expect(await created(aheadSession)).toEqual({ today: 1, period: 2 });
  });
});
