// Several workers (each with its own connection pool, as separate processes have) against one
// PostgreSQL database: SKIP LOCKED claims and leases mean no notification is sent by two workers
// at once, and none is lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { deliveryWorker } from '../../src/main/delivery-worker.js';
import { createLogger } from '../../src/runtime/logger.js';
import { testDatabaseKind } from '../helpers/database.js';
import { reconciledPayment } from '../helpers/delivery.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { countRows } from '../helpers/payments.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const N = 300;
let server: TestServer;
let receiver: Receiver;
const runtimes: Runtime[] = [];
const workers: DeliveryWorker[] = [];
const hits = new Map<string, number>();
const inFlight = new Map<string, number>();
let overlaps = 0;

// On SQLite there is a single writer: every claim runs under the database's write lock, so two
// claims can never overlap and there is nothing concurrent to test. This is PostgreSQL's case.
describe.skipIf(testDatabaseKind() === 'sqlite')('two workers on one PostgreSQL database', () => {
  beforeAll(async () => {
    server = await startTestServer();
    receiver = await startReceiver((request) => {
      const id = JSON.parse(request.body).payment_id as string;
      hits.set(id, (hits.get(id) ?? 0) + 1);
      const now = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, now);
      if (now > 1) overlaps++;
      // Answering a little later keeps many requests open at once, so an overlap would show.
      const after = new Promise((resolve) => setTimeout(resolve, 5)).then(() => inFlight.set(id, inFlight.get(id)! - 1));
      return { status: 200, after };
    });
    const account = await server.account({ notifyUrl: receiver.url });
    for (let i = 0; i < N; i++) await reconciledPayment(server, account);
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    for (const r of runtimes) await r.close();
    await receiver?.close();
    await server?.close();
  });

  it('delivers every notification exactly once between them', async () => {
    for (let i = 0; i < 2; i++) {
      const runtime = await startRuntime(server.config, createLogger('silent', 2));
      runtimes.push(runtime);
      const worker = deliveryWorker(runtime.ctx, { concurrency: 32, perDestination: 32, batchSize: 16, pollMs: 10, leaseMs: 30_000, timeoutMs: 5_000 });
      workers.push(worker);
    }
    for (const w of workers) w.start();
    await eventually(
      () => server.ctx.db.selectFrom('notifications').select('notification_id').where('status', '=', 'delivered').execute(),
      (rows) => rows.length === N,
      60_000,
    );
    expect(overlaps).toBe(0);
    expect(hits.size).toBe(N);
    expect([...hits.values()].every((n) => n === 1)).toBe(true);
    expect(await countRows(server.ctx.db, 'notification_attempts')).toBe(N);
  }, 90_000);
});
