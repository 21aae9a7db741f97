// Sandbox accounts on demand, each on a clock of its own: two accounts side by side, one moved two
// days ahead, the other untouched, through the real HTTP API, a real worker and a real receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payWithDemoBank } from '../../src/app/pay-with-demobank.js';
import { testWorker } from '../helpers/delivery.js';
import { call, client } from '../helpers/http.js';
import { startReceiver } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';

const DAY = 24 * 3_600_000;
const setup = useTestServer();
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver?.close());

interface Account {
  receiver_id: number;
  secret: string;
  api_key: string;
}

const sandbox = (method: 'POST' | 'DELETE', path: string, body?: unknown) => call(setup.server.baseUrl, method, path, { body });

async function newAccount(): Promise<Account> {
  const created = await sandbox('POST', '/sandbox/accounts', { name: 'Suite account', notify_url: receiver.url });
  expect(created.status).toBe(200);
  return created.body;
}

/** The `t=` (milliseconds) of the signature of a payment's notification. */
async function notifiedAt(paymentId: string): Promise<number> {
  await receiver.waitFor((requests) => requests.some((r) => r.body.includes(paymentId)));
  const request = receiver.requests.find((r) => r.body.includes(paymentId))!;
  return Number(/t=(\d+)/.exec(String(request.headers['x-khipu-signature']))![1]);
}

describe('sandbox accounts', () => {
  it('are created on demand, each with its own credentials, by a loopback caller of a loopback installation', async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    expect(a.receiver_id).not.toBe(b.receiver_id);
    expect(a.api_key).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client(setup.server.baseUrl, a.api_key).get('/v3/banks')).status).toBe(200);
    expect((await sandbox('POST', '/sandbox/accounts', { unknown: 1 })).status).toBe(400);
  });

  it('are removed with everything of theirs, and the others keep theirs', async () => {
    const [gone, kept] = [await newAccount(), await newAccount()];
    const paymentOf = async (account: Account) =>
      (await client(setup.server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'To remove' })).body.payment_id;
    const [goneId, keptId] = [await paymentOf(gone), await paymentOf(kept)];
    const worker = testWorker(setup.server);
    try {
      await payWithDemoBank(setup.server.ctx, goneId, 'pay');
      await notifiedAt(goneId);
    } finally {
      await worker.stop();
    }

    expect((await sandbox('DELETE', `/sandbox/accounts/${gone.receiver_id}`)).status).toBe(204);
    expect((await client(setup.server.baseUrl, gone.api_key).get(`/v3/payments/${goneId}`)).status).toBe(401);
    const { db } = setup.server.ctx;
    for (const table of ['payments', 'messages', 'payment_attempts', 'message_attempts'] as const) {
      expect(await db.selectFrom(table).select('receiver_id').where('receiver_id', '=', gone.receiver_id).execute()).toEqual([]);
    }
    expect(
      await db
        .selectFrom('demobank_requests' as never)
        .selectAll()
        .where('payment_id' as never, '=', goneId as never)
        .execute(),
    ).toEqual([]);
    expect((await client(setup.server.baseUrl, kept.api_key).get(`/v3/payments/${keptId}`)).status).toBe(200);
    expect((await sandbox('DELETE', `/sandbox/accounts/${gone.receiver_id}`)).status).toBe(404);
    // The installation's own accounts, developer-mode or not, are not the sandbox's to remove: as unknown.
    for (const own of [await setup.server.account({ developer: false }), await setup.server.account({ developer: true })])
      expect((await sandbox('DELETE', `/sandbox/accounts/${own.receiver_id}`)).status).toBe(404);
  });
});

describe('a clock per account', () => {
  it("moves one account's time only: its clock, expiries, records' dates and notification signatures", async () => {
    const [ahead, still] = [await newAccount(), await newAccount()];
    const api = (account: Account) => client(setup.server.baseUrl, account.api_key);
    const create = async (account: Account, expires?: number) =>
      (
        await api(account).post('/v3/payments', {
          amount: 2000,
          currency: 'CLP',
          subject: 'Side by side',
          ...(expires === undefined ? {} : { expires_date: new Date(expires).toISOString() }),
        })
      ).body.payment_id as string;
    const [aheadFirst, stillFirst] = [await create(ahead, Date.now() + DAY), await create(still, Date.now() + DAY)];

    const moved = await api(ahead).post('/sandbox/clock', { advance: '2d' });
    expect(moved.status).toBe(200);
    expect(moved.body.own).toBe(true);
    expect(moved.body.offset_ms).toBeGreaterThanOrEqual(2 * DAY);
    const other = await api(still).get('/sandbox/clock');
    expect(other.body).toMatchObject({ own: false, offset_ms: 0 });

    // The account ahead has its payment expired: its payer can no longer pay it. The other's pays.
    await expect(payWithDemoBank(setup.server.ctx, aheadFirst, 'pay')).rejects.toMatchObject({ kind: 'state' });

    // New records are dated on their account's clock, and so are the signatures of their notifications.
    const [aheadPaid, stillPaid] = [await create(ahead), await create(still)];
    const worker = testWorker(setup.server);
    try {
      await payWithDemoBank(setup.server.ctx, aheadPaid, 'pay');
      await payWithDemoBank(setup.server.ctx, stillPaid, 'pay');
      expect((await payWithDemoBank(setup.server.ctx, stillFirst, 'pay')).status).toBe('done');
      const [aheadT, stillT] = [await notifiedAt(aheadPaid), await notifiedAt(stillPaid)];
      expect(aheadT - Date.now()).toBeGreaterThan(DAY);
      expect(Math.abs(stillT - Date.now())).toBeLessThan(DAY);
      expect(Date.parse((await api(ahead).get(`/v3/payments/${aheadPaid}`)).body.conciliation_date) - Date.now()).toBeGreaterThan(DAY);
      expect(Math.abs(Date.parse((await api(still).get(`/v3/payments/${stillPaid}`)).body.conciliation_date) - Date.now())).toBeLessThan(DAY);
    } finally {
      await worker.stop();
    }

    // A reset returns the account to the installation's clock, its dates brought back with it: the
    // payment that expired is still expired, the one just paid was paid moments ago.
    const reset = await api(ahead).post('/sandbox/clock/reset');
    expect(reset.body).toMatchObject({ own: false, offset_ms: 0 });
    await expect(payWithDemoBank(setup.server.ctx, aheadFirst, 'pay')).rejects.toMatchObject({ kind: 'state' });
    const paid = (await api(ahead).get(`/v3/payments/${aheadPaid}`)).body;
    expect(paid.status).toBe('done');
    expect(Math.abs(Date.parse(paid.conciliation_date) - Date.now())).toBeLessThan(DAY);
  });
});
