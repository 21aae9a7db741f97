// Every clock-driven rule of an account follows that account's own clock, and only its: two accounts
// side by side, one moved through POST /sandbox/clock, the other not, each with its own receivers,
// through the HTTP API, the payer and signing pages, the delivery worker and the background jobs
// running as in `quipu serve`. Expiry is in account-clocks.test.ts; what the accounts read (tokens,
// lists, the dashboard) in account-clock-reads.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COORDINATES, PENDING_APPROVAL_RUT } from '../../src/bank/demo-bank-scenarios.js';
import { client } from '../helpers/http.js';
import { runEveryJob, runInBackground } from '../helpers/jobs.js';
import { signMandateThroughPages } from '../helpers/mandate-session.js';
import { eventually, type ReceivedRequest, type Receiver, signedBy, startReceiver } from '../helpers/notification-receiver.js';
import { csrfOf, PayerSession, startDemoBankAttempt, tabAtCoordinates, titleOf } from '../helpers/payer-session.js';
import { useTestServer } from '../helpers/server.js';
import { NEW_SUBSCRIPTION, newCharge } from '../helpers/subscriptions.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const setup = useTestServer();
let background: ReturnType<typeof runInBackground>;
const receivers: Receiver[] = [];

beforeAll(() => {
  background = runInBackground(setup.server);
});
afterAll(async () => {
  await background?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(answer: 'ok' | 'fail' = 'ok'): Promise<Receiver> {
  const started = await startReceiver(answer === 'ok' ? undefined : () => ({ status: 500, body: 'down' }));
  receivers.push(started);
  return started;
}

type Api = ReturnType<typeof client>;
interface Account {
  receiverId: number;
  secret: string;
  api: Api;
}

/** A sandbox account (POST /sandbox/accounts) whose payments are notified at `notifyUrl`. */
async function sandboxAccount(notifyUrl: string): Promise<Account> {
  const created = await client(setup.server.baseUrl, '').post('/sandbox/accounts', { notify_url: notifyUrl });
  expect(created.status).toBe(200);
  return { receiverId: created.body.receiver_id, secret: created.body.secret, api: client(setup.server.baseUrl, created.body.api_key) };
}

/** Moves the account's own clock; the other account's stays where it is. */
async function advance(account: Account, by: string): Promise<number> {
  const moved = await account.api.post('/sandbox/clock', { advance: by });
  expect(moved.status).toBe(200);
  expect(moved.body.own).toBe(true);
  return Date.parse(moved.body.now);
}

async function clockOf(account: Account): Promise<{ now: number; own: boolean }> {
  const read = (await account.api.get('/sandbox/clock')).body;
  return { now: Date.parse(read.now), own: read.own };
}

async function newPayment(account: Account, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await account.api.post('/v3/payments', { amount: 3000, currency: 'CLP', subject: 'Side by side', ...fields });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

/** The payer pays at DemoBank through the payer pages. */
async function payThroughPages(paymentId: string): Promise<void> {
  const tab = await tabAtCoordinates(setup.server.baseUrl, paymentId);
  const [c1, c2, c3] = DEMO_COORDINATES.pay;
  expect((await tab.submit({ c1, c2, c3 })).status).toBe(303);
}

const paymentOf = async (account: Account, paymentId: string) => (await account.api.get(`/v3/payments/${paymentId}`)).body;
const subscriptionOf = async (account: Account, id: string) => (await account.api.get(`/v1/automatic-payment/subscription/${id}`)).body;

/** The `t=` (milliseconds) of a request's x-khipu-signature. */
const signedAt = (request: ReceivedRequest) => Number(/t=(\d+)/.exec(String(request.headers['x-khipu-signature']))![1]);

describe('each account on its own clock, side by side', () => {
  it("ends the payer's 3-hour attempt of the account moved 3 hours on, not the other's", async () => {
    const inbox = await receiver();
    const [ahead, still] = [await sandboxAccount(inbox.url), await sandboxAccount(inbox.url)];
    const start = async (account: Account) => {
      const paymentId = await newPayment(account, { cancel_url: 'https://shop.example/cancel' });
      const session = new PayerSession(setup.server.baseUrl);
      const bankPath = await startDemoBankAttempt(session, paymentId);
      return { paymentId, session, bankPath, login: await session.get(bankPath) };
    };
    const [late, onTime] = [await start(ahead), await start(still)];
    await advance(ahead, '3h');
    const signIn = (tab: typeof late) => tab.session.post(`${tab.bankPath}/login`, { _csrf: csrfOf(tab.login), rut: '11.111.111-1', password: '1234' });

    const refused = await signIn(late);
    expect(refused.status).toBe(409);
    expect(titleOf(refused)).toBe('Intento vencido');
    const accepted = await signIn(onTime);
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe(`${onTime.bankPath}/authorize`);
    // Both payments are still payable: only the attempt lasts 3 hours.
    expect((await paymentOf(ahead, late.paymentId)).status).toBe('pending');
    expect((await paymentOf(still, onTime.paymentId)).status).toBe('pending');
  });

  it('reminds the payer of the moved account when its reminder falls due on that clock, not the other', async () => {
    const inbox = await receiver();
    const [ahead, still] = [await sandboxAccount(inbox.url), await sandboxAccount(inbox.url)];
    const remindable = async (account: Account) => {
      const expires = (await clockOf(account)).now + 3 * DAY;
      const fields = {
        send_email: true,
        send_reminders: true,
        payer_name: 'Ana',
        payer_email: 'ana@example.com',
        expires_date: new Date(expires).toISOString(),
      };
      return newPayment(account, fields);
    };
    const [aheadId, stillId] = [await remindable(ahead), await remindable(still)];
    const kindsOf = async (account: Account, paymentId: string) =>
      ((await account.api.get(`/quipu/v1/emails?payment_id=${paymentId}`)).body.emails as { kind: string }[]).map((e) => e.kind);

    // Two days and a minute on: the reminder one day before expiry is due on the moved clock only.
    await advance(ahead, '2d1m');
    await eventually(
      () => kindsOf(ahead, aheadId),
      (kinds) => kinds.includes('payment.email.reminder'),
    );
    // A round of every job over every account: the other account's reminder is scanned for, and is not due.
    await runEveryJob(setup.server.ctx);
    expect(await kindsOf(ahead, aheadId)).toEqual(['payment.email.reminder', 'payment.email.collection']);
    expect(await kindsOf(still, stillId)).toEqual(['payment.email.collection']);
  });

  it("retries the moved account's notifications on its clock and ends their two-day round on it; the other's waits in real time", async () => {
    const [failingAhead, failingStill] = [await receiver('fail'), await receiver('fail')];
    const [ahead, still] = [await sandboxAccount(failingAhead.url), await sandboxAccount(failingStill.url)];
    const [aheadId, stillId] = [await newPayment(ahead), await newPayment(still)];
    await payThroughPages(aheadId);
    await payThroughPages(stillId);
    await failingAhead.waitFor((requests) => requests.length >= 1);
    await failingStill.waitFor((requests) => requests.length >= 1);
    const notificationOf = async (account: Account, paymentId: string) =>
      (await account.api.get(`/quipu/v1/notifications?payment_id=${paymentId}`)).body.notifications[0] as { status: string; attempts: number };

    // A day on: the attempts due within it (at 0, 5 s, 5 min, 35 min, 2 h 35, 7 h 35, 17 h 35) are
    // made one after another; the eighth is due a day and seven hours after the first.
    const oneDayOn = await advance(ahead, '1d');
    const afterADay = await eventually(
      () => notificationOf(ahead, aheadId),
      (n) => n.attempts === 7,
    );
    expect(afterADay.status).toBe('pending');
    // Each retry is signed at its account's time.
    expect(signedAt(failingAhead.requests.at(-1)!)).toBeGreaterThanOrEqual(oneDayOn);
    expect(failingAhead.requests.every((r) => signedBy(ahead.secret, r))).toBe(true);

    // Past two days: the ninth attempt ends the round, and the notification is exhausted.
    await advance(ahead, '1d');
    const exhausted = await eventually(
      () => notificationOf(ahead, aheadId),
      (n) => n.status === 'exhausted',
    );
    expect(exhausted.attempts).toBe(9);
    expect(failingAhead.requests).toHaveLength(9);

    // The other account's notification is in its first minutes: two attempts at most (0 and 5 s), still pending.
    const other = await notificationOf(still, stillId);
    expect(other.status).toBe('pending');
    expect(other.attempts).toBeLessThanOrEqual(2);
    expect(failingStill.requests.length).toBeLessThanOrEqual(2);
    expect(failingStill.requests.every((r) => Math.abs(signedAt(r) - Date.now()) < HOUR)).toBe(true);
    expect(failingStill.requests.every((r) => r.body.includes(stillId))).toBe(true);
  });

  it("activates the pending mandate of the moved account on the bank's next business day on its clock, not the other's", async () => {
    const inbox = await receiver();
    const [ahead, still] = [await sandboxAccount(inbox.url), await sandboxAccount(inbox.url)];
    const pendingMandate = async (account: Account) => {
      const created = await account.api.post('/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, notify_url: inbox.url });
      expect(created.status).toBe(200);
      await signMandateThroughPages(setup.server.baseUrl, created.body.redirect_url, { rut: PENDING_APPROVAL_RUT });
      expect((await subscriptionOf(account, created.body.subscription_id)).status).toBe('SIGNED');
      return created.body.subscription_id as string;
    };
    const [aheadId, stillId] = [await pendingMandate(ahead), await pendingMandate(still)];

    // A week holds a business day whatever the holidays.
    await advance(ahead, '7d');
    await eventually(
      () => subscriptionOf(ahead, aheadId),
      (s) => s.status === 'ENABLED',
    );
    await runEveryJob(setup.server.ctx);
    expect((await subscriptionOf(still, stillId)).status).toBe('SIGNED');
    await inbox.waitFor((requests) => requests.some((r) => r.body.includes(aheadId)));
    expect(inbox.requests.filter((r) => r.body.includes(stillId))).toEqual([]);
  });

  it("settles the moved account's charge on its clock's next business day, not the other's", async () => {
    const inbox = await receiver();
    const [ahead, still] = [await sandboxAccount(inbox.url), await sandboxAccount(inbox.url)];
    const charge = async (account: Account) => {
      const created = await account.api.post('/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, notify_url: inbox.url });
      await signMandateThroughPages(setup.server.baseUrl, created.body.redirect_url);
      expect((await subscriptionOf(account, created.body.subscription_id)).status).toBe('ENABLED');
      const intent = await account.api.post('/v1/automatic-payment/charge-intent', newCharge(created.body.subscription_id, { notify_url: inbox.url }));
      expect(intent.status).toBe(200);
      return intent.body.payment_id as string;
    };
    const [aheadId, stillId] = [await charge(ahead), await charge(still)];
    // Submitted to DemoBank within seconds, on each account's own time.
    for (const [account, id] of [
      [ahead, aheadId],
      [still, stillId],
    ] as const)
      await eventually(
        () => paymentOf(account, id),
        (p) => p.status === 'verifying',
      );

    const aheadNow = await advance(ahead, '7d');
    const settled = await eventually(
      () => paymentOf(ahead, aheadId),
      (p) => p.status === 'done',
    );
    expect(Date.parse(settled.conciliation_date)).toBeGreaterThan(aheadNow - 7 * DAY);
    await runEveryJob(setup.server.ctx);
    expect((await paymentOf(still, stillId)).status).toBe('verifying');
  });

  it("delivers the moved account's funds and reports them to its rendition_url, signed at its time; the other's funds wait", async () => {
    const [reportsAhead, reportsStill] = [await receiver(), await receiver()];
    const withRendition = async (rendition: Receiver): Promise<Account> => {
      const opened = await setup.server.account({ renditionUrl: rendition.url, notifyUrl: rendition.url.replace('/notify', '/payments') });
      return { receiverId: opened.receiver_id, secret: opened.secret, api: client(setup.server.baseUrl, opened.api_key) };
    };
    const [ahead, still] = [await withRendition(reportsAhead), await withRendition(reportsStill)];
    const [aheadId, stillId] = [await newPayment(ahead), await newPayment(still)];
    await payThroughPages(aheadId);
    await payThroughPages(stillId);
    expect((await paymentOf(ahead, aheadId)).status).toBe('done');
    expect((await paymentOf(still, stillId)).status).toBe('done');

    const aheadNow = await advance(ahead, '10d');
    const isReport = (r: ReceivedRequest) => r.path === '/notify';
    await reportsAhead.waitFor((requests) => requests.some(isReport));
    await runEveryJob(setup.server.ctx);
    const [report] = reportsAhead.requests.filter(isReport);
    expect(JSON.parse(report!.body)).toMatchObject({
      receiver_id: ahead.receiverId,
      total: '3000.0000',
      payments: [expect.objectContaining({ payment_id: aheadId })],
    });
    expect(signedBy(ahead.secret, report!)).toBe(true);
    expect(signedAt(report!)).toBeGreaterThanOrEqual(aheadNow);
    expect(reportsStill.requests.filter(isReport)).toEqual([]);
  });
});
