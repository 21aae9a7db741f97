// Snapshots of sandbox accounts over HTTP on a real server, with a real delivery worker and real
// receivers: an account seeded with payments in several states, notifications delivered and one
// failing, a subscription with its mandate, a charge and a refund is recorded, changed in every way
// (paid, refunded, created, deleted, its clock moved, its failing notification delivered), restored,
// and every table of SNAPSHOT_RECORDS holds again exactly the rows it held; the notification due again
// is delivered again as the same message, and an account created meanwhile is untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payWithDemoBank } from '../../src/app/pay-with-demobank.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { SNAPSHOT_RECORDS, ownedBy } from '../../src/store/account-records.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { sql } from 'kysely';
import { testWorker } from '../helpers/delivery.js';
import { call, client } from '../helpers/http.js';
import { eventually, type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

const setup = useTestServer();
let receiver: Receiver;
/** Fails every notification until the test lets it through: its payment's notification waits for a retry. */
let failing: Receiver;
let failingAnswers = 500;

beforeAll(async () => {
  receiver = await startReceiver();
  failing = await startReceiver(() => ({ status: failingAnswers, body: 'no' }));
});
afterAll(async () => {
  await receiver?.close();
  await failing?.close();
});

interface Account {
  receiver_id: number;
  api_key: string;
}

const sandbox = (method: 'POST' | 'GET' | 'DELETE', path: string) => call(setup.server.baseUrl, method, path);
const api = (account: Account) => client(setup.server.baseUrl, account.api_key);

async function newAccount(): Promise<Account> {
  const created = await call(setup.server.baseUrl, 'POST', '/sandbox/accounts', { body: { notify_url: receiver.url, dashboard: true } });
  expect(created.status).toBe(200);
  // Refunds are a feature an account is given.
  await updateMerchant(setup.server.ctx, created.body.receiver_id, { features: { refunds: true } });
  return created.body;
}

async function newPayment(account: Account, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await api(account).post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Snapshot', ...fields });
  expect(created.status).toBe(200);
  return created.body.payment_id as string;
}

type Rows = Record<string, Record<string, unknown>[]>;

/** Every row of every table of SNAPSHOT_RECORDS owned by the account, in a fixed order. */
async function accountRows(receiverId: number): Promise<Rows> {
  const rows: Rows = {};
  for (const records of SNAPSHOT_RECORDS) {
    const { rows: found } = await sql<Record<string, unknown>>`select * from ${sql.table(records.table)} where ${ownedBy(records, receiverId)}`.execute(
      setup.server.ctx.db,
    );
    rows[records.table] = found.map((row) => ({ ...row })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return rows;
}

/** The rows without the versions a restore writes anew (payments', subscriptions' and the clock's). */
function withoutVersions(rows: Rows): Rows {
  const strip = (row: Record<string, unknown>) => {
    const { version: _version, clock_version: _clockVersion, ...rest } = row;
    return rest;
  };
  return Object.fromEntries(Object.entries(rows).map(([table, list]) => [table, list.map(strip)]));
}

const versionsOf = (rows: Rows, table: string) => rows[table]!.map((row) => Number(row.version));

const messageOf = (paymentId: string) =>
  setup.server.ctx.db.selectFrom('messages').selectAll().where('subject_id', '=', paymentId).where('url', '=', failing.url).executeTakeFirstOrThrow();

describe('snapshots of a sandbox account', () => {
  let worker: DeliveryWorker | undefined;
  afterAll(async () => worker?.stop());

  it('restore every record, the clock and the schedule of messages exactly; a message due again is sent again as itself', async () => {
    const account = await newAccount();
    expect((await api(account).post('/sandbox/clock', { advance: '1h' })).status).toBe(200);
    worker = testWorker(setup.server);

    // Seeding: a pending payment, paid ones notified, one refunded, one whose notification fails and
    // waits for its retry, a subscription with its mandate enabled and a charge on it.
    // Text that JSON escapes comes back as it was.
    const pending = await newPayment(account, { subject: 'Pedido "Ñandú" \\ 🎉\nlínea 2' });
    const toDelete = await newPayment(account);
    const paid = await newPayment(account);
    const refunded = await newPayment(account);
    const retried = await newPayment(account, { notify_url: failing.url });
    for (const id of [paid, refunded, retried]) expect((await payWithDemoBank(setup.server.ctx, id, 'pay')).status).toBe('done');
    expect((await api(account).post(`/v3/payments/${refunded}/refunds`, { amount: 1000 })).status).toBe(200);
    const subscription = await createSubscriptionOver(api(account), { notify_url: receiver.url });
    await signAtDemoBank(setup.server.ctx, subscription);
    const charge = await api(account).post('/v1/automatic-payment/charge-intent', newCharge(subscription, { notify_url: receiver.url }));
    expect(charge.status).toBe(200);
    await receiver.waitFor((requests) => [paid, refunded].every((id) => requests.some((r) => r.body.includes(id))));
    const firstTry = await eventually(
      () => messageOf(retried),
      (message) => message.attempts >= 1 && message.lease_id === null,
    );
    await worker.stop();
    worker = undefined;

    const taken = await sandbox('POST', `/sandbox/accounts/${account.receiver_id}/snapshots`);
    expect(taken.status).toBe(200);
    const snapshot = taken.body;
    const recorded = await accountRows(account.receiver_id);
    expect(snapshot).toMatchObject({ receiver_id: account.receiver_id, rows: Object.values(recorded).flat().length });
    expect(Math.abs(Date.parse(snapshot.created_at) - Date.now())).toBeLessThan(60_000);
    for (const table of ['payments', 'messages', 'message_attempts', 'refunds', 'subscriptions', 'demobank_mandates', 'debits'])
      expect(recorded[table]!.length, table).toBeGreaterThan(0);
    const clockThen = (await api(account).get('/sandbox/clock')).body;

    // Another account, created meanwhile: a restore of the first leaves it as it is.
    const other = await newAccount();
    const othersPayment = await newPayment(other);
    const othersSnapshot = (await sandbox('POST', `/sandbox/accounts/${other.receiver_id}/snapshots`)).body;

    // Everything changes: a payment paid, one refunded, one created, one deleted, the clock moved, and
    // the failing notification delivered once its receiver answers.
    worker = testWorker(setup.server);
    expect((await payWithDemoBank(setup.server.ctx, pending, 'pay')).status).toBe('done');
    // Read as paid, so the server holds it as paid.
    expect((await api(account).get(`/v3/payments/${pending}`)).body.status).toBe('done');
    expect((await api(account).post(`/v3/payments/${paid}/refunds`, { amount: 5000 })).status).toBe(200);
    const created = await newPayment(account);
    expect((await api(account).delete(`/v3/payments/${toDelete}`)).status).toBe(200);
    failingAnswers = 200;
    expect((await api(account).post('/sandbox/clock', { advance: '2h' })).status).toBe(200);
    await eventually(
      () => messageOf(retried),
      (message) => message.status === 'delivered',
    );
    await worker.stop();
    worker = undefined;
    const changed = await accountRows(account.receiver_id);
    expect(withoutVersions(changed)).not.toEqual(withoutVersions(recorded));
    const othersRows = await accountRows(other.receiver_id);

    const restored = await sandbox('POST', `/sandbox/accounts/${account.receiver_id}/snapshots/${snapshot.snapshot_id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual(snapshot);

    // Every row as recorded; only the versions are new, above any the rows had.
    const after = await accountRows(account.receiver_id);
    expect(withoutVersions(after)).toEqual(withoutVersions(recorded));
    const highest = Math.max(...versionsOf(changed, 'payments'), ...versionsOf(changed, 'subscriptions'), Number(changed.merchants![0]!.clock_version));
    for (const version of [...versionsOf(after, 'payments'), ...versionsOf(after, 'subscriptions'), Number(after.merchants![0]!.clock_version)])
      expect(version).toBeGreaterThan(highest);
    // The API answers the restored state (no process keeps a payment read before the restore).
    expect((await api(account).get(`/v3/payments/${pending}`)).body.status).toBe('pending');
    expect((await api(account).get(`/v3/payments/${toDelete}`)).status).toBe(200);
    expect((await api(account).get(`/v3/payments/${created}`)).status).toBe(404);
    // The clock is back: its own, at the offset it had.
    const clockNow = (await api(account).get('/sandbox/clock')).body;
    expect(clockNow).toMatchObject({ own: true, offset_ms: clockThen.offset_ms });
    // The account created meanwhile is untouched.
    expect(await accountRows(other.receiver_id)).toEqual(othersRows);
    expect((await api(other).get(`/v3/payments/${othersPayment}`)).status).toBe(200);

    // The notification that was waiting for its retry is due again and is sent again, as the same
    // message, with the same body, to a receiver that now takes it.
    const sentBefore = failing.requests.length;
    worker = testWorker(setup.server);
    await failing.waitFor((requests) => requests.length > sentBefore);
    const resent = await eventually(
      () => messageOf(retried),
      (message) => message.status === 'delivered',
    );
    expect(resent.message_id).toBe(firstTry.message_id);
    expect(failing.requests[sentBefore]!.body).toBe(failing.requests[0]!.body);
    // The attempts recorded in the snapshot, then the one made after the restore.
    const attemptsOf = (rows: Record<string, unknown>[]) =>
      rows
        .filter((a) => a.message_id === resent.message_id)
        .map((a) => ({ number: Number(a.number), outcome: a.outcome }))
        .sort((a, b) => a.number - b.number);
    expect(attemptsOf(await setup.server.ctx.db.selectFrom('message_attempts').selectAll().execute())).toEqual([
      ...attemptsOf(recorded.message_attempts!),
      { number: Number(recorded.messages!.find((m) => m.message_id === resent.message_id)!.attempts) + 1, outcome: 'delivered' },
    ]);
    await worker.stop();
    worker = undefined;

    // Restores go on working from the same snapshot; another account's snapshot and an unknown one are not found.
    expect((await sandbox('POST', `/sandbox/accounts/${account.receiver_id}/snapshots/${snapshot.snapshot_id}/restore`)).status).toBe(200);
    expect(withoutVersions(await accountRows(account.receiver_id))).toEqual(withoutVersions(recorded));
    for (const id of [othersSnapshot.snapshot_id, '6b0e1c1e-0000-4000-8000-000000000000']) {
      const refused = await sandbox('POST', `/sandbox/accounts/${account.receiver_id}/snapshots/${id}/restore`);
      expect(refused.status).toBe(404);
      expect(refused.body.message).toBe('Snapshot not found');
    }
    expect((await sandbox('POST', `/sandbox/accounts/${other.receiver_id}/snapshots/${othersSnapshot.snapshot_id}/restore`)).status).toBe(200);
  });

  it('are listed, removed one by one, and go with their account', async () => {
    const account = await newAccount();
    const path = `/sandbox/accounts/${account.receiver_id}/snapshots`;
    const first = (await sandbox('POST', path)).body;
    await newPayment(account);
    const second = (await sandbox('POST', path)).body;
    expect(second.rows).toBeGreaterThan(first.rows);
    expect((await sandbox('GET', path)).body).toEqual({ items: [first, second] });

    expect((await sandbox('DELETE', `${path}/${first.snapshot_id}`)).status).toBe(204);
    expect((await sandbox('DELETE', `${path}/${first.snapshot_id}`)).status).toBe(404);
    expect((await sandbox('POST', `${path}/${first.snapshot_id}/restore`)).status).toBe(404);
    expect((await sandbox('GET', path)).body).toEqual({ items: [second] });

    expect((await sandbox('DELETE', `/sandbox/accounts/${account.receiver_id}`)).status).toBe(204);
    expect(await setup.server.ctx.db.selectFrom('sandbox_snapshots').select('snapshot_id').where('receiver_id', '=', account.receiver_id).execute()).toEqual(
      [],
    );
    expect(
      await setup.server.ctx.db.selectFrom('sandbox_snapshot_tables').select('table_name').where('snapshot_id', '=', second.snapshot_id).execute(),
    ).toEqual([]);
    expect((await sandbox('POST', path)).status).toBe(404);
    // The installation's own accounts, developer-mode or not, are not the sandbox's to record: as unknown.
    for (const own of [await setup.server.account({ developer: false }), await setup.server.account({ developer: true })])
      expect((await sandbox('POST', `/sandbox/accounts/${own.receiver_id}/snapshots`)).status).toBe(404);
  });
});

describe('snapshots with SANDBOX=false', () => {
  const closed = useTestServer({ SANDBOX: 'false' });

  it('are not there', async () => {
    const { receiver_id } = closed.account;
    for (const [method, path] of [
      ['POST', `/sandbox/accounts/${receiver_id}/snapshots`],
      ['GET', `/sandbox/accounts/${receiver_id}/snapshots`],
      ['POST', `/sandbox/accounts/${receiver_id}/snapshots/6b0e1c1e-0000-4000-8000-000000000000/restore`],
    ] as const)
      expect((await call(closed.server.baseUrl, method, path)).status).toBe(404);
  });
});
