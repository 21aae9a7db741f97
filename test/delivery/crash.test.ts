// The server process is killed (SIGKILL) while notifications are in flight. After a restart every
// notification is delivered; only the attempts that were in flight at the kill may arrive twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/app/create-merchant.js';
import { loadConfig } from '../../src/config.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { reconciledPaymentIn } from '../helpers/delivery.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { serveOnFreePort, type ServerProcess } from '../helpers/process.js';

const N = 40;
const CONCURRENCY = 8;
let database: TestDatabase;
let runtime: Runtime;
let receiver: Receiver;
const servers: ServerProcess[] = [];
let releaseHung!: () => void;
const hung = new Promise<void>((resolve) => (releaseHung = resolve));

beforeAll(async () => {
  database = await createTestDatabase();
  // Hold every request: the attempts stay in flight until the process is killed.
  receiver = await startReceiver(() => ({ status: 200, after: hung }));
});
afterAll(async () => {
  releaseHung();
  for (const s of servers) await s.stop('SIGKILL');
  await runtime?.close();
  await receiver?.close();
  await database?.drop();
});

describe('SIGKILL in the middle of delivering', () => {
  it('delivers every pending notification after a restart', async () => {
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'warn',
      DEMO_ACCOUNT: 'false',
      DELIVERY_CONCURRENCY: String(CONCURRENCY),
      // One receiver takes every request: all of them in flight at the kill.
      DELIVERY_CONCURRENCY_PER_DESTINATION: String(CONCURRENCY),
      DELIVERY_TIMEOUT_MS: '2000',
      DELIVERY_LEASE_MS: '4000',
      DELIVERY_POLL_MS: '50',
    };
    runtime = await startRuntime(loadConfig(env), createLogger('silent', 2));
    const ctx = runtime.ctx;
    const { merchant } = await createMerchant(ctx, { name: 'Crash shop', developer: true, notifyUrl: receiver.url });
    const ids: string[] = [];
    for (let i = 0; i < N; i++) ids.push((await reconciledPaymentIn(ctx, merchant, { subject: `Order ${i}` })).paymentId);

    const first = await serveOnFreePort(env, servers);
    await receiver.waitFor((requests) => requests.length === CONCURRENCY);
    await first.stop('SIGKILL');
    const inFlightAtKill = new Set(receiver.requests.map((r) => JSON.parse(r.body).payment_id as string));
    expect(inFlightAtKill.size).toBe(CONCURRENCY);

    receiver.answer(() => ({ status: 200 }));
    releaseHung();
    await serveOnFreePort(env, servers);
    const delivered = await eventually(
      () => ctx.db.selectFrom('notifications').select(['payment_id', 'status']).execute(),
      (rows) => rows.length === N && rows.every((r) => r.status === 'delivered'),
      60_000,
    );
    expect(delivered).toHaveLength(N);

    const hits = new Map<string, number>();
    for (const r of receiver.requests) {
      const id = JSON.parse(r.body).payment_id as string;
      hits.set(id, (hits.get(id) ?? 0) + 1);
    }
    for (const id of ids) expect(hits.get(id)).toBeGreaterThanOrEqual(1);
    for (const [id, count] of hits) if (count > 1) expect(inFlightAtKill.has(id)).toBe(true);
    // The attempts killed in flight were never recorded: one recorded delivery per notification.
    const attempts = await ctx.db.selectFrom('notification_attempts').select(['outcome']).where('outcome', '=', 'delivered').execute();
    expect(attempts).toHaveLength(N);
  }, 120_000);
});
