// A claimed notification that waited for a free slot, or for a slow account lookup, is only sent
// if its lease outlasts the request; otherwise it is handed back. Without that rule, a second
// worker could take it over (lease ended) while the first is still sending it. An attempt
// recorded after its lease went to another worker is logged under a number of its own and leaves
// the notification to that worker.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { DeliveryWorker, WorkerOptions } from '../../src/delivery/worker.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { deliveryWorker } from '../../src/main/delivery-worker.js';
import { createLogger } from '../../src/runtime/logger.js';
import { wallClockMs } from '../../src/runtime/wall-clock.js';
import { claimDueMessages, listAttemptRows, recordAttempts } from '../../src/store/messages.js';
import { testDatabaseKind } from '../helpers/database.js';
import { reconciledPayment } from '../helpers/delivery.js';
import { eventually } from '../helpers/notification-receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let receiver: http.Server;
const open = new Map<string, number>();
const hits = new Map<string, number>();
let overlaps = 0;

beforeAll(async () => {
  // Loaded once before the workers start: a cold first load under a loaded machine can outlast the
  // 400 ms timeout below, and every first attempt would then end before it reached the receiver.
  await import('undici');
  server = await startTestServer();
  // Never answers: every attempt ends by the worker's timeout, which closes the connection.
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const id = JSON.parse(body).payment_id as string;
      hits.set(id, (hits.get(id) ?? 0) + 1);
      open.set(id, (open.get(id) ?? 0) + 1);
      if (open.get(id)! > 1) overlaps++;
      res.on('close', () => open.set(id, open.get(id)! - 1));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await server?.close();
});

describe('leases of claimed notifications', () => {
  it('never lets two workers send the same notification at once, even when claims wait for a slot', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
    const account = await server.account({ notifyUrl: url });
    const payments = [];
    for (let i = 0; i < 5; i++) payments.push(await reconciledPayment(server, account));
    // A lease of 1.5 timeouts (shorter than the configuration allows) makes the danger wide: a
    // claim that waited a whole timeout for a slot has half a request's time of lease left.
    const timing = { pollMs: 20, timeoutMs: 400, leaseMs: 600 };
    // A claims four (two sending, two waiting for its two slots); B has free slots and takes over
    // whatever A hands back or lets lapse.
    const a = deliveryWorker(server.ctx, { ...timing, concurrency: 2, perDestination: 2, batchSize: 2 });
    const b = deliveryWorker(server.ctx, { ...timing, concurrency: 8, perDestination: 8, batchSize: 8 });
    a.start();
    try {
      await eventually(
        async () => [...open.values()].reduce((x, y) => x + y, 0),
        (n) => n === 2,
      );
      b.start();
      const recorded = () => server.ctx.db.selectFrom('notifications').select('attempts').execute();
      await eventually(recorded, (rows) => rows.length === 5 && rows.every((r) => r.attempts >= 1), 20_000);
    } finally {
      await a.stop();
      await b.stop();
    }
    expect(overlaps).toBe(0);
    for (const p of payments) expect(hits.get(p.paymentId)).toBeGreaterThanOrEqual(1);
    const attempts = await server.ctx.db.selectFrom('notification_attempts').select(['error']).execute();
    for (const attempt of attempts) expect(attempt.error).toBe('timeout: no complete answer within 400 ms');
  }, 60_000);

  it('numbers an attempt recorded after its lease went to another worker, and leaves the notification to that worker', async () => {
    // Nobody sends this one: the two claims and their results are played by hand.
    const account = await server.account({ notifyUrl: 'https://shop.example/notify' });
    const payment = await reconciledPayment(server, account);
    const row = await server.ctx.db.selectFrom('notifications').selectAll().where('payment_id', '=', payment.paymentId).executeTakeFirstOrThrow();
    const time = server.ctx.clocks.scanTime();
    const now = server.ctx.clock.now().getTime();
    const wallNow = wallClockMs(server.ctx.clock);
    const claim = async (leaseId: string, at: number) =>
      (await claimDueMessages(server.ctx.db, { time, wallNow: at, leaseId, leaseUntil: at + 1_000, limit: 500, skipDestinations: [] })).map(
        (r) => r.message_id,
      );
    expect(await claim('lease-a', wallNow)).toContain(row.notification_id);
    // A's lease ends before A records its attempt: B claims the row.
    expect(await claim('lease-b', wallNow + 2_000)).toContain(row.notification_id);
    const attempt = (outcome: 'delivered' | 'failed') => ({
      message_id: row.notification_id,
      receiver_id: row.receiver_id,
      trigger: 'first',
      due_at: now,
      started_at: now,
      latency_ms: 3,
      outcome,
      status_code: outcome === 'delivered' ? 200 : 500,
      error: outcome === 'delivered' ? null : 'HTTP 500',
      response_excerpt: null,
    });

    const late = await recordAttempts(server.ctx.db, [{ attempt: attempt('delivered'), leaseId: 'lease-a', nextAttemptAt: null }], time);
    expect(late.get(row.notification_id)).toEqual({ number: 1, applied: false });
    const current = await recordAttempts(server.ctx.db, [{ attempt: attempt('failed'), leaseId: 'lease-b', nextAttemptAt: now + 5_000 }], time);
    expect(current.get(row.notification_id)).toEqual({ number: 2, applied: true });

    const after = await server.ctx.db.selectFrom('notifications').selectAll().where('notification_id', '=', row.notification_id).executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'pending', attempts: 2, round_step: 1, next_attempt_at: now + 5_000, lease_id: null, delivered_at: null });
    expect((await listAttemptRows(server.ctx.db, row.notification_id)).map((a) => [a.number, a.outcome])).toEqual([
      [1, 'delivered'],
      [2, 'failed'],
    ]);
  });
});

// Only PostgreSQL can hold an account lookup up: a table lock makes readers wait there, while
// SQLite's readers never wait for anyone.
describe.skipIf(testDatabaseKind() === 'sqlite')('a slow account lookup', () => {
  const runtimes: Runtime[] = [];
  afterAll(async () => {
    for (const r of runtimes) await r.close();
  });

  it('makes the worker hand the notification back rather than send it past its lease', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
    const account = await server.account({ notifyUrl: url });
    const payment = await reconciledPayment(server, account);
    // Processes of their own (as separate worker processes have): their account caches are empty.
    const workers: DeliveryWorker[] = [];
    const timing: WorkerOptions = { concurrency: 4, perDestination: 4, batchSize: 4, pollMs: 20, timeoutMs: 400, leaseMs: 1_000 };
    for (let i = 0; i < 2; i++) {
      const runtime = await startRuntime(server.config, createLogger('silent', 2));
      runtimes.push(runtime);
      workers.push(deliveryWorker(runtime.ctx, timing));
    }
    const lock = new pg.Client({ connectionString: server.database.url });
    await lock.connect();
    const leased = () =>
      server.ctx.db.selectFrom('notifications').select(['lease_id', 'attempts']).where('payment_id', '=', payment.paymentId).executeTakeFirstOrThrow();
    try {
      await lock.query('begin');
      await lock.query('lock table merchants in access exclusive mode');
      for (const w of workers) w.start();
      await eventually(leased, (row) => row.lease_id !== null);
      // The lookup of the account waits on the lock until less of the lease is left than a request may take.
      await new Promise((resolve) => setTimeout(resolve, 800));
      await lock.query('commit');
      await eventually(leased, (row) => row.attempts >= 1, 20_000);
    } finally {
      for (const w of workers) await w.stop();
      await lock.end();
    }
    expect(overlaps).toBe(0);
    expect(hits.get(payment.paymentId)).toBe(1);
    expect((await leased()).attempts).toBe(1);
  }, 60_000);
});
