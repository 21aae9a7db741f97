// Faults on demand (PUT/GET/DELETE /sandbox/faults): each fault on one sandbox account while another
// account on the same server sees none, through the real HTTP API, DemoBank, the delivery worker,
// the resolve-uncertain-transfers job and real receivers; the same seed gives the same faults.
import { afterAll, describe, expect, it } from 'vitest';
import { payWithDemoBank } from '../../src/app/pay-with-demobank.js';
import { resolveUncertainTransfers } from '../../src/app/resolve-transfers.js';
import { testWorker } from '../helpers/delivery.js';
import { call, client } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';

const setup = useTestServer();
const receivers: Receiver[] = [];
afterAll(async () => Promise.all(receivers.map((r) => r.close())));

interface Account {
  receiverId: number;
  apiKey: string;
  api: ReturnType<typeof client>;
  receiver: Receiver;
}

async function sandboxAccount(): Promise<Account> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await call(setup.server.baseUrl, 'POST', '/sandbox/accounts', { body: { notify_url: receiver.url } });
  expect(created.status).toBe(200);
  const apiKey = created.body.api_key as string;
  return { receiverId: created.body.receiver_id, apiKey, api: client(setup.server.baseUrl, apiKey), receiver };
}

const setFaults = (account: Account, body: unknown) => call(setup.server.baseUrl, 'PUT', '/sandbox/faults', { apiKey: account.apiKey, body });

async function newPayment(account: Account, subject = 'Faults'): Promise<string> {
  const created = await account.api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

const paymentCount = async (account: Account) =>
  (await setup.server.ctx.db.selectFrom('payments').select('payment_id').where('receiver_id', '=', account.receiverId).execute()).length;

/** The payments each request the receiver got was about, in the order they came. */
const notifiedPayments = (receiver: Receiver, ids: string[]) => receiver.requests.map((r) => ids.find((id) => r.body.includes(id)));

/** Pays every payment at DemoBank, in order, before any worker runs: their notifications fall due together. */
async function paidTogether(account: Account, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await newPayment(account, `Order ${i}`));
  for (const id of ids) await payWithDemoBank(setup.server.ctx, id, 'pay');
  return ids;
}

describe('API faults', () => {
  it('refuse the next N requests of the account with 429 and Retry-After before anything runs, counted across requests; /sandbox is spared', async () => {
    const [faulty, calm] = [await sandboxAccount(), await sandboxAccount()];
    const set = await setFaults(faulty, { api: { status: 429, count: 2, retry_after_seconds: 7 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      seed: 0,
      api: { status: 429, count: 2, retry_after_seconds: 7, remaining: 2 },
      drop_connection: null,
      bank: null,
      notifications: null,
    });

    const refused = await faulty.api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Refused' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(refused.body).toMatchObject({ status: 429 });
    expect(await paymentCount(faulty)).toBe(0);
    // The other account on the same server is answered as usual.
    expect((await calm.api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Calm' })).status).toBe(200);
    // Reading the faults is no API request of the count.
    expect((await call(setup.server.baseUrl, 'GET', '/sandbox/faults', { apiKey: faulty.apiKey })).body.api.remaining).toBe(1);

    expect((await faulty.api.get('/v3/banks')).status).toBe(429);
    expect((await faulty.api.get('/v3/banks')).status).toBe(200);
    expect(await newPayment(faulty)).toMatch(/\w/);
    expect((await call(setup.server.baseUrl, 'GET', '/sandbox/faults', { apiKey: faulty.apiKey })).body.api.remaining).toBe(0);
  });

  it('answer 503 with Retry-After on the v2 API too, then stop', async () => {
    const [faulty, calm] = [await sandboxAccount(), await sandboxAccount()];
    await setFaults(faulty, { api: { status: 503, count: 1 } });
    const refused = await call(setup.server.baseUrl, 'GET', '/2.0/banks', { apiKey: faulty.apiKey });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await call(setup.server.baseUrl, 'GET', '/2.0/banks', { apiKey: calm.apiKey })).status).toBe(200);
    expect((await call(setup.server.baseUrl, 'GET', '/2.0/banks', { apiKey: faulty.apiKey })).status).toBe(200);
  });

  it('drop the connection of a request that ran and committed: the payment exists, and the same Idempotency-Key replays it', async () => {
    const [faulty, calm] = [await sandboxAccount(), await sandboxAccount()];
    await setFaults(faulty, { drop_connection: { count: 1 } });
    const headers = { 'content-type': 'application/json', 'x-api-key': faulty.apiKey, 'idempotency-key': 'order-1' };
    const body = JSON.stringify({ amount: 1000, currency: 'CLP', subject: 'Dropped' });
    await expect(fetch(`${setup.server.baseUrl}/v3/payments`, { method: 'POST', headers, body })).rejects.toThrow();
    expect(await paymentCount(faulty)).toBe(1);
    expect(await paymentCount(calm)).toBe(0);
    expect((await calm.api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Calm' })).status).toBe(200);

    const retried = await fetch(`${setup.server.baseUrl}/v3/payments`, { method: 'POST', headers, body });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    const paymentId = ((await retried.json()) as { payment_id: string }).payment_id;
    expect((await faulty.api.get(`/v3/payments/${paymentId}`)).body.subject).toBe('Dropped');
    expect(await paymentCount(faulty)).toBe(1);
  });
});

describe('bank faults', () => {
  it("leave the account's transfers uncertain until the fault is removed; then the job settles them as DemoBank decided", async () => {
    const [faulty, calm] = [await sandboxAccount(), await sandboxAccount()];
    await setFaults(faulty, { bank: { transfers: 'uncertain' } });
    const [held, paid] = [await newPayment(faulty), await newPayment(calm)];
    expect((await payWithDemoBank(setup.server.ctx, held, 'pay')).status).not.toBe('done');
    expect((await payWithDemoBank(setup.server.ctx, paid, 'pay')).status).toBe('done');

    // While the fault holds, DemoBank still cannot say.
    await resolveUncertainTransfers(setup.server.ctx);
    expect((await faulty.api.get(`/v3/payments/${held}`)).body.status).not.toBe('done');

    expect((await call(setup.server.baseUrl, 'DELETE', '/sandbox/faults', { apiKey: faulty.apiKey })).status).toBe(204);
    expect(await resolveUncertainTransfers(setup.server.ctx)).toBeGreaterThanOrEqual(1);
    expect((await faulty.api.get(`/v3/payments/${held}`)).body.status).toBe('done');
  });
});

describe('notification faults', () => {
  it('send each notification twice: two requests with the same body, two attempts logged; the other account once', async () => {
    const [faulty, calm] = [await sandboxAccount(), await sandboxAccount()];
    await setFaults(faulty, { notifications: { duplicate: 1 } });
    const [twice] = await paidTogether(faulty, 1);
    const [once] = await paidTogether(calm, 1);
    const worker = testWorker(setup.server);
    try {
      await faulty.receiver.waitFor((requests) => requests.filter((r) => r.body.includes(twice!)).length === 2);
      await calm.receiver.waitFor((requests) => requests.some((r) => r.body.includes(once!)));
    } finally {
      await worker.stop();
    }
    const [first, second] = faulty.receiver.requests;
    expect(second!.body).toBe(first!.body);
    expect(calm.receiver.requests).toHaveLength(1);
    const listed = (await faulty.api.get(`/quipu/v1/notifications?payment_id=${twice}`)).body.notifications;
    const detail = (await faulty.api.get(`/quipu/v1/notifications/${listed[0].notification_id}`)).body;
    expect(detail.status).toBe('delivered');
    expect(detail.attempts).toBe(2);
    expect(detail.attempt_log).toHaveLength(2);
  });

  it("send an account's notifications due together one after another in another order than their own; the other account's are not duplicated", async () => {
    const [faulty, calm] = [await sandboxAccount(), await sandboxAccount()];
    await setFaults(faulty, { seed: 11, notifications: { out_of_order: true } });
    const reordered = await paidTogether(faulty, 4);
    const usual = await paidTogether(calm, 4);
    const worker = testWorker(setup.server);
    try {
      await faulty.receiver.waitFor((requests) => requests.length === 4);
      await calm.receiver.waitFor((requests) => requests.length === 4);
    } finally {
      await worker.stop();
    }
    const order = notifiedPayments(faulty.receiver, reordered);
    expect([...order].sort()).toEqual([...reordered].sort());
    expect(order).not.toEqual(reordered);
    expect([...notifiedPayments(calm.receiver, usual)].sort()).toEqual([...usual].sort());
  });

  it('are the same for the same seed: which go twice and in which order', async () => {
    const setting = { seed: 20261124, notifications: { duplicate: 0.5, out_of_order: true } };
    const [one, other] = [await sandboxAccount(), await sandboxAccount()];
    expect((await setFaults(one, setting)).status).toBe(200);
    expect((await setFaults(other, setting)).status).toBe(200);
    const sequences: (number | undefined)[][] = [];
    for (const account of [one, other]) {
      const ids = await paidTogether(account, 5);
      const worker = testWorker(setup.server);
      try {
        // Every notification at least once, and the worker's sends (duplicates included) all over.
        await account.receiver.waitFor((requests) => new Set(notifiedPayments(account.receiver, ids)).size === 5 && requests.length >= 5);
      } finally {
        await worker.stop();
      }
      sequences.push(notifiedPayments(account.receiver, ids).map((id) => ids.indexOf(id!)));
    }
    expect(sequences[1]).toEqual(sequences[0]);
    // This seed sends some twice, and the five in an order of its own.
    expect(sequences[0]!.length).toBeGreaterThan(5);
    expect([...new Set(sequences[0])]).not.toEqual([0, 1, 2, 3, 4]);
  });
});

describe('the setting', () => {
  it('is refused with a 400 naming each bad field', async () => {
    const account = await sandboxAccount();
    const bad = await setFaults(account, {
      seed: -1,
      api: { status: 500, count: 0 },
      drop_connection: { count: 1_000_001 },
      bank: { transfers: 'lost' },
      notifications: { duplicate: 2, order: 'reverse' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      ['api.count', 'api.status', 'bank.transfers', 'drop_connection.count', 'notifications.duplicate', 'notifications.order', 'seed'].sort(),
    );
    expect((await call(setup.server.baseUrl, 'GET', '/sandbox/faults', { apiKey: account.apiKey })).body).toEqual({
      seed: 0,
      api: null,
      drop_connection: null,
      bank: null,
      notifications: null,
    });
  });

  it('is for developer-mode accounts only', async () => {
    const production = await setup.server.account({ developer: false });
    expect((await call(setup.server.baseUrl, 'PUT', '/sandbox/faults', { apiKey: production.api_key, body: { api: { status: 429, count: 1 } } })).status).toBe(
      403,
    );
  });
});

describe('without the sandbox', () => {
  const closed = useTestServer({ SANDBOX: 'false' });

  it('does not exist', async () => {
    const account = await closed.server.account();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await call(closed.server.baseUrl, method, '/sandbox/faults', { apiKey: account.api_key, body: method === 'PUT' ? {} : undefined });
      expect(answer.status).toBe(404);
    }
  });
});
