// The server process is killed (SIGKILL) while accountability reports are in flight to a receiver
// that hangs. After a restart every report is delivered; only those in flight at the kill may
// arrive twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/app/create-merchant.js';
import { deliverFunds } from '../../src/app/deliver-funds.js';
import { moveClock } from '../../src/app/developer-clock.js';
import { loadConfig } from '../../src/config.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { reconciledPaymentIn } from '../helpers/delivery.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { serveOnFreePort, type ServerProcess } from '../helpers/process.js';

const N = 24;
const CONCURRENCY = 8;
const KIND = 'receiver.accountability';
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

const deliveryOf = (body: string) => JSON.parse(body).delivery_id as string;

describe('SIGKILL in the middle of reporting funds deliveries', () => {
  it('delivers every pending accountability report after a restart', async () => {
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
    // One delivery each: an account per payment, all reporting to the same rendition_url.
    for (let i = 0; i < N; i++) {
      const { merchant } = await createMerchant(ctx, { name: `Shop ${i}`, developer: true, renditionUrl: receiver.url });
      await reconciledPaymentIn(ctx, merchant, { subject: `Order ${i}` });
    }
    // Stored in the shared settings: the server processes read it when they start.
    await moveClock(ctx, { advance: '7d' });
    expect(await deliverFunds(ctx)).toBe(N);
    const ids = (await ctx.db.selectFrom('fund_deliveries').select('delivery_id').execute()).map((d) => d.delivery_id);
    expect(ids).toHaveLength(N);

    const first = await serveOnFreePort(env, servers);
    await receiver.waitFor((requests) => requests.length === CONCURRENCY);
    await first.stop('SIGKILL');
    const inFlightAtKill = new Set(receiver.requests.map((r) => deliveryOf(r.body)));
    expect(inFlightAtKill.size).toBe(CONCURRENCY);

    receiver.answer(() => ({ status: 200 }));
    releaseHung();
    await serveOnFreePort(env, servers);
    const delivered = await eventually(
      () => ctx.db.selectFrom('messages').select(['subject_id', 'status']).where('kind', '=', KIND).execute(),
      (rows) => rows.length === N && rows.every((r) => r.status === 'delivered'),
      60_000,
    );
    expect(delivered).toHaveLength(N);

    const hits = new Map<string, number>();
    for (const r of receiver.requests) hits.set(deliveryOf(r.body), (hits.get(deliveryOf(r.body)) ?? 0) + 1);
    for (const id of ids) expect(hits.get(id)).toBeGreaterThanOrEqual(1);
    for (const [id, count] of hits) if (count > 1) expect(inFlightAtKill.has(id)).toBe(true);
    // The attempts killed in flight were never recorded: one recorded delivery per report.
    const attempts = await ctx.db
      .selectFrom('message_attempts as a')
      .innerJoin('messages as m', 'm.message_id', 'a.message_id')
      .select('a.outcome')
      .where('m.kind', '=', KIND)
      .where('a.outcome', '=', 'delivered')
      .execute();
    expect(attempts).toHaveLength(N);
  }, 120_000);
});
