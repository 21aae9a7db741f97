// The faults a charge's debit must survive without reaching its bank twice: processes collecting
// the same due debits at once; a bank that does not answer in time (the debit is uncertain, asked
// about, and submitted again only once the bank says it never got it); a `quipu serve` killed
// between the bank's booking of a debit and its record; and callback receivers that are down
// (the signing notification and the charge error are retried on the two-day schedule, visible in
// the event log, and never lost). DemoBank's journal is the bank's record of what it was asked.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { collectDebits } from '../../src/app/collect-debits.js';
import { createCharge } from '../../src/app/create-charge.js';
import { createMerchant } from '../../src/app/create-merchant.js';
import { createSubscription } from '../../src/app/create-subscription.js';
import { moveClock } from '../../src/app/developer-clock.js';
import { type DemoBankRequest, journaledRequests } from '../../src/bank/demo-bank-books.js';
import type { DebitOrder, DebitResult } from '../../src/bank/connector.js';
import { debitsSubmittedTwice } from '../../src/bank/demo-bank-mandates.js';
import { INSUFFICIENT_FUNDS_RUT } from '../../src/bank/demo-bank-scenarios.js';
import { loadConfig } from '../../src/config.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import type { BankCredit } from '../../src/domain/bank-credit.js';
import type { Debit } from '../../src/domain/debit.js';
import { DEMO_BANK_ID } from '../../src/domain/banks.js';
import type { RawValue } from '../../src/domain/field-rules.js';
import { MAX_ATTEMPTS } from '../../src/domain/retry-schedule.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { findDebitOfPayment } from '../../src/store/debits.js';
import type { DB } from '../../src/store/schema.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, signedBy, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { serveOnFreePort, type ServerProcess } from '../helpers/process.js';
import { ANY_PAYER, ScriptedBank, type ScriptedMandates } from '../helpers/scripted-bank.js';
import { useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, NEW_SUBSCRIPTION, newCharge, signAt, signAtDemoBank } from '../helpers/subscriptions.js';

const SECOND = 1_000;
const DAY = 24 * 3_600 * SECOND;
/** Where callbacks go unless a test listens for them: nothing listens there. */
const NOWHERE = 'http://127.0.0.1:9/nowhere';
const QUIET = { notify_url: NOWHERE, error_response_url: NOWHERE };
/** Past any bank's settlement day: DemoBank settles on the next bank business day. */
const SETTLEMENT_MOVE = '5d';

const JOB_ONCE = new URL('../helpers/job-once.ts', import.meta.url).pathname;

let api: ReturnType<typeof client>;

// A bank that has not answered within a second has not answered.
const setup = useTestServer({ BANK_TIMEOUT_MS: '1000' });
beforeAll(() => {
  api = client(setup.server.baseUrl, setup.account.api_key);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const advance = (duration: string) => moveClock(setup.server.ctx, { advance: duration });

/** `count` processes on the test server's database run `job` once, at the same moment; their results. */
async function runJobAtOnce(job: string, count: number): Promise<unknown[]> {
  const env = { ...process.env, DATABASE_URL: setup.server.database.url, DATA_DIR: setup.server.database.dataDir, LOG_LEVEL: 'error', DEMO_ACCOUNT: 'false' };
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', 'tsx', JOB_ONCE, job], { env, stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const lines = children.map((child) => createInterface({ input: child.stdout! })[Symbol.asyncIterator]());
  for (const line of lines) expect((await line.next()).value).toBe('ready');
  for (const child of children) child.stdin!.write('go\n');
  const results = await Promise.all(lines.map(async (line) => JSON.parse(String((await line.next()).value).replace(/^result /, ''))));
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : undefined)));
  return results;
}

async function enabledSubscription(rut?: string, fields: Record<string, RawValue> = {}): Promise<string> {
  const id = await createSubscriptionOver(api, { notify_url: NOWHERE, ...fields });
  await signAtDemoBank(setup.server.ctx, id, rut);
  return id;
}

async function charges(subscriptionId: string, count: number, fields: Record<string, RawValue> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 20) {
    const created = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, (_, j) =>
        api.post('/v1/automatic-payment/charge-intent', newCharge(subscriptionId, { ...QUIET, amount: 100, transaction_id: `INV-${i + j}`, ...fields })),
      ),
    );
    for (const res of created) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body.payment_id);
    }
  }
  return ids;
}

/** How many times DemoBank was sent each order, by the journal of its requests. */
function submissionsPerOrder(journal: readonly DemoBankRequest[]): Map<string, number> {
  const submissions = new Map<string, number>();
  for (const r of journal) if (r.operation === 'debit') submissions.set(r.orderId!, (submissions.get(r.orderId!) ?? 0) + 1);
  return submissions;
}

const debitOf = async (paymentId: string): Promise<Debit> => (await findDebitOfPayment(setup.server.ctx.db, paymentId))!;
/** What DemoBank was asked about a charge, in order. */
const askedOf = async (paymentId: string) => (await journaledRequests(setup.server.ctx.db, { paymentId, limit: 100 })).map((r) => `${r.operation}:${r.answer}`);
const paymentStatus = async (paymentId: string) => (await api.get(`/v3/payments/${paymentId}`)).body.status as string;

describe('processes collecting debits at once', () => {
  it('submit each of many due debits once, and settle and reconcile each once', async () => {
    const subscriptionId = await enabledSubscription();
    // More than one batch of the job (200).
    const paymentIds = await charges(subscriptionId, 210);

    const runs = (await runJobAtOnce('collect-debits', 2)) as { submitted: number }[];
    expect(runs.reduce((n, run) => n + run.submitted, 0)).toBe(paymentIds.length);
    const ours = new Set(paymentIds);
    const submissions = submissionsPerOrder((await journaledRequests(setup.server.ctx.db, { limit: 10_000 })).filter((r) => ours.has(r.paymentId!)));
    expect([...submissions.values()]).toEqual(new Array(paymentIds.length).fill(1));
    expect(await debitsSubmittedTwice(setup.server.ctx.db)).toBe(0);
    const states = await setup.server.ctx.db.selectFrom('debits').select('state').where('payment_id', 'in', paymentIds).execute();
    expect(states.every((d) => d.state === 'submitted')).toBe(true);

    await advance(SETTLEMENT_MOVE);
    await runJobAtOnce('collect-debits', 2);
    const payments = await setup.server.ctx.db.selectFrom('payments').select(['payment_id', 'status']).where('payment_id', 'in', paymentIds).execute();
    expect(payments.filter((p) => p.status === 'done')).toHaveLength(paymentIds.length);
    const notifications = await setup.server.ctx.db
      .selectFrom('messages')
      .select('subject_id')
      .where('kind', 'like', 'payment.notification.%')
      .where('subject_id', 'in', paymentIds)
      .execute();
    expect(notifications).toHaveLength(paymentIds.length);
    expect(new Set(notifications.map((n) => n.subject_id)).size).toBe(paymentIds.length);
    const credits = await setup.server.ctx.db.selectFrom('bank_credits').select(['payment_id', 'status']).where('payment_id', 'in', paymentIds).execute();
    expect(credits.filter((c) => c.status === 'matched')).toHaveLength(paymentIds.length);
  }, 90_000);
});

describe('a bank that does not answer a debit in time', () => {
  // A scripted bank with direct debits stands in for DemoBank: what it booked is what it answers
  // when asked, and every order it received is counted.
  type Behaviour = (order: DebitOrder) => Promise<DebitResult>;
  const never = () => new Promise<never>(() => {});
  let bank: ScriptedMandates;
  const books = new Map<string, DebitResult>();
  const scripts = new Map<string, Behaviour[]>();

  /** The bank takes the debit and settles it the next day. */
  const accept: Behaviour = async (order) => {
    const accepted: DebitResult = { status: 'accepted', settlesAt: new Date(setup.server.ctx.clock.now().getTime() + DAY) };
    books.set(order.orderId, accepted);
    return accepted;
  };
  /** The bank books the debit; its answer never comes back. */
  const bookedThenSilent: Behaviour = async (order) => {
    await accept(order);
    return never();
  };
  /** What the bank does with the next orders about this charge, then as itself. */
  const script = (paymentId: string, ...behaviours: Behaviour[]) => scripts.set(paymentId, behaviours);
  const next = (order: DebitOrder, itself: Behaviour) => (scripts.get(order.reference)?.shift() ?? itself)(order);
  const submissionsOf = (paymentId: string) => bank.debitsSubmitted.filter((o) => o.reference === paymentId).length;
  const questionsOf = (paymentId: string) => bank.debitsAsked.filter((o) => o.reference === paymentId).length;
  /** The bank moves the money of the debits it accepted: it says so when next asked. */
  const settleBooked = () => {
    for (const order of bank.debitsSubmitted)
      if (books.get(order.orderId)?.status === 'accepted') books.set(order.orderId, { status: 'settled', credit: creditOf(order) });
  };
  const creditOf = (order: DebitOrder): BankCredit => ({
    bankReference: `scripted-${order.orderId}`,
    account: order.account,
    amount: order.amount,
    currency: order.currency,
    reference: order.reference,
    creditedAt: setup.server.ctx.clock.now(),
    payerBankId: DEMO_BANK_ID,
    payerName: 'Cliente Scripted',
    payerEmail: null,
    payerPersonalIdentifier: '11.111.111-1',
    payerAccountNumber: '000123456789',
    paymentMethod: 'not_available',
    fundsSource: null,
  });

  beforeAll(async () => {
    const scripted = new ScriptedBank(setup.server.ctx.banks, DEMO_BANK_ID, { mandates: true, standIn: true });
    scripted.signIn = ANY_PAYER;
    bank = scripted.mandates!;
    bank.onDebit = (order) => next(order, accept);
    bank.onDebitStatus = (order) => next(order, async () => books.get(order.orderId) ?? { status: 'unknown' });
    return () => scripted.unregister();
  });

  /** A charge of a subscription whose mandate the payer signed at the scripted bank. */
  async function scriptedCharge(): Promise<string> {
    const subscriptionId = await createSubscriptionOver(api, { notify_url: NOWHERE });
    await signAt(setup.server.ctx, subscriptionId, DEMO_BANK_ID, { identifier: '11.111.111-1', password: 'secret' }, ['1', '2', '3']);
    const [paymentId] = await charges(subscriptionId, 1);
    return paymentId!;
  }

  it('leaves the debit uncertain, never submits it again blindly, and finds it submitted when asked', async () => {
    const paymentId = await scriptedCharge();
    script(paymentId, bookedThenSilent);
    await collectDebits(setup.server.ctx);
    expect(await debitOf(paymentId)).toMatchObject({ state: 'uncertain', submittedAt: null });
    expect(await paymentStatus(paymentId)).toBe('pending');

    // Until its question is due, a run leaves it alone.
    await collectDebits(setup.server.ctx);
    await advance('30s');
    await collectDebits(setup.server.ctx);
    expect(submissionsOf(paymentId)).toBe(1);
    expect(questionsOf(paymentId)).toBe(0);

    await advance('31s');
    await collectDebits(setup.server.ctx);
    expect(questionsOf(paymentId)).toBe(1);
    expect((await debitOf(paymentId)).state).toBe('submitted');
    expect(await paymentStatus(paymentId)).toBe('verifying');

    await advance(SETTLEMENT_MOVE);
    settleBooked();
    await collectDebits(setup.server.ctx);
    expect(await paymentStatus(paymentId)).toBe('done');
    expect(submissionsOf(paymentId)).toBe(1);
  });

  it.each([
    ['hangs', never],
    ['breaks the connection', () => Promise.reject(new Error('socket hang up'))],
  ] as [string, Behaviour][])('submits a debit again, once, when the bank that %s says it never got it', async (_what, failure) => {
    const paymentId = await scriptedCharge();
    script(paymentId, failure);
    await collectDebits(setup.server.ctx);
    expect((await debitOf(paymentId)).state).toBe('uncertain');
    expect(questionsOf(paymentId)).toBe(0);

    // The bank is asked first; the debit it says it never got is due again at once, so the same run
    // or the next one (when the answer came within the run's own millisecond) submits it.
    await advance('61s');
    await collectDebits(setup.server.ctx);
    expect(questionsOf(paymentId)).toBe(1);
    await collectDebits(setup.server.ctx);
    expect(submissionsOf(paymentId)).toBe(2);
    expect((await debitOf(paymentId)).state).toBe('submitted');

    await collectDebits(setup.server.ctx);
    await advance(SETTLEMENT_MOVE);
    settleBooked();
    await collectDebits(setup.server.ctx);
    expect(submissionsOf(paymentId)).toBe(2);
    expect(await paymentStatus(paymentId)).toBe('done');
  });

  it('keeps asking, a minute apart, while the question goes unanswered too', async () => {
    const paymentId = await scriptedCharge();
    script(paymentId, bookedThenSilent, never, () => Promise.reject(new Error('ECONNRESET')));
    await collectDebits(setup.server.ctx);
    for (let question = 1; question <= 2; question++) {
      await collectDebits(setup.server.ctx);
      expect(questionsOf(paymentId)).toBe(question - 1);
      await advance('61s');
      await collectDebits(setup.server.ctx);
      expect(questionsOf(paymentId)).toBe(question);
      expect((await debitOf(paymentId)).state).toBe('uncertain');
    }
    await advance('61s');
    await collectDebits(setup.server.ctx);
    expect(questionsOf(paymentId)).toBe(3);
    expect(submissionsOf(paymentId)).toBe(1);
    expect((await debitOf(paymentId)).state).toBe('submitted');
  });
});

describe('callback receivers that are down', () => {
  let worker: DeliveryWorker;
  const receivers: Receiver[] = [];
  beforeAll(() => {
    worker = testWorker(setup.server);
  });
  afterAll(async () => {
    await worker?.stop();
    for (const r of receivers) await r.close();
  });

  /** A receiver's address with nothing listening on it; `up()` starts one there. */
  async function downReceiver() {
    const first = await startReceiver();
    await first.close();
    const port = Number(new URL(first.url).port);
    return {
      url: first.url,
      up: async () => {
        const receiver = await startReceiver(undefined, port);
        receivers.push(receiver);
        return receiver;
      },
    };
  }

  const eventOf = async (kind: string, subjectId: string) => {
    const listed = await api.get(`/quipu/v1/events?kind=${kind}&subject_id=${subjectId}`);
    expect(listed.body.events).toHaveLength(1);
    return (await api.get(`/quipu/v1/events/${listed.body.events[0].id}`)).body;
  };
  const withAttempts = (kind: string, subjectId: string, attempts: number) =>
    eventually(
      () => eventOf(kind, subjectId),
      (e) => e.attempts >= attempts,
    );
  const until = (kind: string, subjectId: string, status: string) =>
    eventually(
      () => eventOf(kind, subjectId),
      (e) => e.status === status,
    );

  /**
   * Both callbacks, written at the same instant of the developer clock: a charge whose debit failed
   * for insufficient funds, told to `url`, and then a signing finished, told to `url` too.
   */
  async function bothCallbacks(url: string): Promise<{ subscriptionId: string; paymentId: string; poorSubscriptionId: string }> {
    const poorSubscriptionId = await enabledSubscription(INSUFFICIENT_FUNDS_RUT);
    const [paymentId] = await charges(poorSubscriptionId, 1, { error_response_url: url, transaction_id: 'INV-down' });
    await collectDebits(setup.server.ctx);
    await advance(SETTLEMENT_MOVE);
    await collectDebits(setup.server.ctx);
    expect((await debitOf(paymentId!)).state).toBe('failed');
    const subscriptionId = await enabledSubscription(undefined, { notify_url: url });
    return { subscriptionId, paymentId: paymentId!, poorSubscriptionId };
  }

  it('retries the signing notification and the charge error on schedule, shows their attempts, and delivers them once back up', async () => {
    const down = await downReceiver();
    const { subscriptionId, paymentId, poorSubscriptionId } = await bothCallbacks(down.url);
    const callbacks = [
      ['subscription.signing', subscriptionId],
      ['payment.charge.error', paymentId],
    ] as const;
    for (const [kind, subject] of callbacks) {
      const event = await withAttempts(kind, subject, 1);
      expect(event).toMatchObject({ status: 'pending', destination: down.url, next_attempt_at: expect.any(String), delivered_at: null });
      expect(event.attempt_log[0]).toMatchObject({ trigger: 'first', outcome: 'failed', status_code: null, error: expect.stringContaining('ECONNREFUSED') });
      // The first retry is due 5 s (less up to 10% jitter) after the first attempt was due: the payment notifications' schedule.
      const wait = Date.parse(event.next_attempt_at) - Date.parse(event.attempt_log[0].due_at);
      expect(wait).toBeGreaterThanOrEqual(4_500);
      expect(wait).toBeLessThanOrEqual(5 * SECOND);
    }

    await advance('6s');
    for (const [kind, subject] of callbacks)
      expect((await withAttempts(kind, subject, 2)).attempt_log[1]).toMatchObject({ trigger: 'retry', outcome: 'failed' });

    const receiver = await down.up();
    await advance('6m');
    for (const [kind, subject] of callbacks)
      expect((await until(kind, subject, 'delivered')).attempt_log.map((a: { outcome: string }) => a.outcome)).toEqual(['failed', 'failed', 'delivered']);
    expect(receiver.requests).toHaveLength(2);
    const bodies = receiver.requests.map((r) => JSON.parse(r.body));
    expect(bodies).toContainEqual({ subscription_id: subscriptionId, status: 'enabled' });
    const error = bodies.find((b) => 'error_message' in b);
    expect(error).toEqual({ subscription_id: poorSubscriptionId, transaction_id: 'INV-down', error_message: expect.stringContaining('Fondos insuficientes') });
    expect(error.error_message).toMatch(/new charge intent/);
    for (const request of receiver.requests) expect(signedBy(setup.account.merchant.secret, request)).toBe(true);
  });

  it('keeps both through two days of a receiver that stays down, then delivers them on resend', async () => {
    const down = await downReceiver();
    const { subscriptionId, paymentId } = await bothCallbacks(down.url);
    await withAttempts('payment.charge.error', paymentId, 1);
    await withAttempts('subscription.signing', subscriptionId, 1);
    await advance('2d');
    const exhausted = [await until('subscription.signing', subscriptionId, 'exhausted'), await until('payment.charge.error', paymentId, 'exhausted')];
    for (const event of exhausted) {
      expect(event.attempts).toBe(MAX_ATTEMPTS);
      expect(event.attempt_log.every((a: { outcome: string }) => a.outcome === 'failed')).toBe(true);
      expect(Date.parse(event.attempt_log.at(-1).due_at) - Date.parse(event.attempt_log[0].due_at)).toBeLessThanOrEqual(2 * DAY);
    }

    const receiver = await down.up();
    for (const event of exhausted) expect((await api.post(`/quipu/v1/events/${event.id}/resend`)).status).toBe(200);
    await receiver.waitFor((requests) => requests.length === 2);
    expect(receiver.requests.map((r) => r.body).sort()).toEqual(exhausted.map((e) => e.body).sort());
  });
});

/** A database that refuses to move a debit out of `submitting`: where a process dies, for the test to kill it there. */
const RECORD_REFUSED: Record<'sqlite' | 'postgres', { install(db: Kysely<DB>): Promise<unknown>; remove(db: Kysely<DB>): Promise<unknown> }> = {
  sqlite: {
    install: (db) =>
      sql`create trigger debit_record_refused before update on debits when old.state = 'submitting' begin select raise(abort, 'refused'); end`.execute(db),
    remove: (db) => sql`drop trigger debit_record_refused`.execute(db),
  },
  postgres: {
    install: async (db) => {
      await sql`create function debit_record_refused() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(db);
      await sql`create trigger debit_record_refused before update on debits for each row when (old.state = 'submitting') execute function debit_record_refused()`.execute(
        db,
      );
    },
    remove: async (db) => {
      await sql`drop trigger debit_record_refused on debits`.execute(db);
      await sql`drop function debit_record_refused()`.execute(db);
    },
  },
};

describe('a quipu serve killed between the bank booking a debit and its record', () => {
  const CHARGES = 40;
  let database: TestDatabase;
  let runtime: Runtime;
  let receiver: Receiver;
  const started: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const p of started) await p.stop('SIGKILL');
    await runtime?.close();
    await receiver?.close();
    await database?.drop();
  });

  it('asks the bank about the debits it left, submits none of them again, and settles each once', async () => {
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'info',
      DEMO_ACCOUNT: 'false',
      JOBS_POLL_MS: '20',
      JOB_LEASE_MS: '1000',
      DELIVERY_POLL_MS: '20',
      INVALIDATION_POLL_MS: '50',
    };
    runtime = await startRuntime(loadConfig(env), createLogger('silent', 2));
    const ctx = runtime.ctx;
    const { merchant } = await createMerchant(ctx, { name: 'Gym', developer: true, users: ['owner@example.com'] });
    const subscription = await createSubscription(ctx, merchant, { ...NEW_SUBSCRIPTION, notify_url: NOWHERE });
    await signAtDemoBank(ctx, subscription.subscriptionId);
    const paymentIds: string[] = [];
    for (let i = 0; i < CHARGES; i++)
      paymentIds.push(
        (await createCharge(ctx, merchant, newCharge(subscription.subscriptionId, { amount: 100, error_response_url: NOWHERE, notify_url: receiver.url })))
          .paymentId,
      );
    // DemoBank's books, which Quipu's own schema does not describe.
    const booked = () => ctx.db.withTables<{ demobank_debits: { order_id: string } }>().selectFrom('demobank_debits').select('order_id').execute();

    // The database refuses to record what became of a debit being submitted, so the process stops
    // there each time, after its bank booked the debit: then it is killed, as if it had died there.
    await RECORD_REFUSED[testDatabaseKind()].install(ctx.db);
    const first = await serveOnFreePort(env, started);
    await eventually(
      () => journaledRequests(ctx.db, { limit: 10_000 }),
      (rows) => rows.filter((r) => r.operation === 'debit').length === CHARGES,
      30_000,
    );
    await first.stop('SIGKILL');
    await RECORD_REFUSED[testDatabaseKind()].remove(ctx.db);

    const left = await ctx.db.selectFrom('debits').select(['debit_id', 'state']).execute();
    expect(left.map((d) => d.state)).toEqual(new Array(CHARGES).fill('submitting'));
    expect(await booked()).toHaveLength(CHARGES);
    const lastRequestAtKill = (await journaledRequests(ctx.db, { limit: 1 })).at(-1)!.requestId;

    // Past the time a submission can take, and past the debits' settlement day: the next process
    // finds the claims stale, and the bank it asks has settled them.
    await moveClock(ctx, { advance: SETTLEMENT_MOVE });
    const second = await serveOnFreePort(env, started);
    await eventually(
      () => ctx.db.selectFrom('debits').select('state').execute(),
      (rows) => rows.every((d) => d.state === 'settled'),
      30_000,
    );
    await receiver.waitFor((requests) => requests.length === CHARGES, 30_000);
    await second.stop('SIGTERM');

    const journal = (await journaledRequests(ctx.db, { limit: 10_000 })).filter((r) => r.operation === 'debit' || r.operation === 'debit-status');
    expect([...submissionsPerOrder(journal).values()]).toEqual(new Array(CHARGES).fill(1));
    // Each was asked about once, and found settled: none was sent again.
    for (const { debit_id } of left) {
      const after = journal.filter((r) => r.orderId === debit_id && r.requestId > lastRequestAtKill);
      expect(after.map((r) => `${r.operation}:${r.answer}`)).toEqual(['debit-status:settled']);
    }
    expect(await debitsSubmittedTwice(ctx.db)).toBe(0);
    expect(await booked()).toHaveLength(CHARGES);
    const payments = await ctx.db.selectFrom('payments').select('status').where('payment_id', 'in', paymentIds).execute();
    expect(payments.every((p) => p.status === 'done')).toBe(true);
    expect(new Set(receiver.requests.map((r) => JSON.parse(r.body).payment_id)).size).toBe(CHARGES);
  }, 120_000);
});
