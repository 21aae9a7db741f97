// Security finding 39.6: one account moving its own clock made every background job of the
// installation due, so twenty moves in a row ran the hourly prune job about once a second. Now a
// move (and a snapshot's restore) wakes that account's work alone: the job runner runs the
// per-account jobs for it at once, while no job's own schedule moves. Driven over HTTP with the job
// runner and the delivery worker running as in `quipu serve`: the moved account's reminder comes at
// once, the prune job runs no more than its hour allows, and another account's reminder, due on its
// own clock, waits for its job's own run.
import { afterAll, describe, expect, it } from 'vitest';
import { moveClock } from '../../src/app/developer-clock.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { createJobRows } from '../../src/store/jobs.js';
import { call, client } from '../helpers/http.js';
import { accountWorkRan, runEveryJob, runInBackground } from '../helpers/jobs.js';
import { eventually } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const setup = useTestServer();
let background: ReturnType<typeof runInBackground> | undefined;
afterAll(async () => background?.stop());

type Api = ReturnType<typeof client>;

async function sandboxAccount(): Promise<{ receiverId: number; api: Api }> {
  const created = await call(setup.server.baseUrl, 'POST', '/sandbox/accounts', { body: {} });
  expect(created.status).toBe(200);
  return { receiverId: created.body.receiver_id, api: client(setup.server.baseUrl, created.body.api_key) };
}

/** An emailed payment with reminders, expiring three days from the account's now: its reminder a day before expiry falls two days on. */
async function remindable(api: Api): Promise<string> {
  const now = Date.parse((await api.get('/sandbox/clock')).body.now);
  const fields = { send_email: true, send_reminders: true, payer_name: 'Ana', payer_email: 'ana@example.com' };
  const created = await api.post('/v3/payments', {
    amount: 3000,
    currency: 'CLP',
    subject: 'Wake',
    ...fields,
    expires_date: new Date(now + 3 * DAY).toISOString(),
  });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

const kindsOf = async (api: Api, paymentId: string) =>
  ((await api.get(`/quipu/v1/emails?payment_id=${paymentId}`)).body.emails as { kind: string }[]).map((e) => e.kind);

const jobRows = () => setup.server.ctx.db.selectFrom('jobs').select(['name', 'run_at', 'runs', 'last_finished_at']).orderBy('name').execute();

describe("a move of one account's clock", () => {
  it("runs that account's work at once, and neither the installation's housekeeping nor another account's work", async () => {
    const { ctx } = setup.server;
    // The other account runs on the installation's clock; moved two days on, its reminder is due.
    const other = client(setup.server.baseUrl, setup.account.api_key);
    const othersPayment = await remindable(other);
    await moveClock(ctx, { advance: '2d1m' });
    // The prune job due now, every other job in an hour: its own run is not for this test to see.
    const now = ctx.clock.now().getTime();
    await createJobRows(ctx.db, ['prune-expired'], now);
    await createJobRows(
      ctx.db,
      JOBS.map((job) => job.name),
      now + HOUR,
    );
    background = runInBackground(setup.server);
    const ran = await eventually(jobRows, (rows) => rows.find((row) => row.name === 'prune-expired')!.last_finished_at !== null);

    const moved = await sandboxAccount();
    const movedPayment = await remindable(moved.api);
    // Twenty moves in a row, three hours each: sixty hours on, past the reminder a day before expiry.
    for (let n = 0; n < 20; n++) expect((await moved.api.post('/sandbox/clock', { advance: '3h' })).status).toBe(200);
    await eventually(
      () => kindsOf(moved.api, movedPayment),
      (kinds) => kinds.includes('payment.email.reminder'),
    );
    await accountWorkRan(setup.server, moved.receiverId);

    // No job ran, nor moved its next run: the prune job ran once, as its hour allows.
    expect(await jobRows()).toEqual(ran);
    expect(ran.find((row) => row.name === 'prune-expired')!.runs).toBe(1);
    expect(await kindsOf(moved.api, movedPayment)).toEqual(['payment.email.reminder', 'payment.email.collection']);
    // The other account's reminder waits for its job's own run, which writes it.
    expect(await kindsOf(other, othersPayment)).toEqual(['payment.email.collection']);
    await runEveryJob(ctx);
    expect(await kindsOf(other, othersPayment)).toEqual(['payment.email.reminder', 'payment.email.collection']);
    await background.stop();
    background = undefined;
  });

  it("and a restore of its snapshot wake that account's work, not the jobs", async () => {
    const account = await sandboxAccount();
    const path = `/sandbox/accounts/${account.receiverId}/snapshots`;
    const snapshot = (await call(setup.server.baseUrl, 'POST', path)).body;
    const before = await jobRows();
    expect((await call(setup.server.baseUrl, 'POST', `${path}/${snapshot.snapshot_id}/restore`)).status).toBe(200);
    expect(await setup.server.ctx.db.selectFrom('account_wakes').select('receiver_id').execute()).toEqual([
      expect.objectContaining({ receiver_id: account.receiverId }),
    ]);
    expect(await jobRows()).toEqual(before);
    background = runInBackground(setup.server);
    await accountWorkRan(setup.server, account.receiverId);
  });
});
