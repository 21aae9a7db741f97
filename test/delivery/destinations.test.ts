// A receiver that hangs holds only its destination's share of the worker: its backlog is older than
// everyone else's, yet the claims pass over it and the other receivers are served meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let hanging: Receiver;
let healthy: Receiver;
let worker: DeliveryWorker | undefined;
let releaseHanging!: () => void;
const hung = new Promise<void>((resolve) => (releaseHanging = resolve));

beforeAll(async () => {
  server = await startTestServer();
  hanging = await startReceiver(() => ({ status: 200, after: hung }));
  healthy = await startReceiver();
});
afterAll(async () => {
  releaseHanging();
  await worker?.stop();
  await hanging?.close();
  await healthy?.close();
  await server?.close();
});

const attemptsOf = (url: string) => server.ctx.db.selectFrom('notifications').select(['payment_id', 'attempts', 'status']).where('url', '=', url).execute();

describe('requests in flight per destination', () => {
  it('keeps serving a healthy receiver while a hanging one holds its share of the slots', async () => {
    const account = await server.account();
    const stuck = [];
    for (let i = 0; i < 50; i++) stuck.push(await reconciledPayment(server, account, { notify_url: hanging.url }));
    const fine = [];
    for (let i = 0; i < 20; i++) fine.push(await reconciledPayment(server, account, { notify_url: healthy.url }));

    // 32 slots, 8 per destination: claims taken oldest first would give every slot to the hanging
    // receiver's 50 notifications until their timeout.
    worker = testWorker(server, { concurrency: 32, perDestination: 8, batchSize: 50, timeoutMs: 20_000 });
    await healthy.waitFor((requests) => requests.length === fine.length);
    for (const p of fine) expect(healthy.requests.some((r) => r.body.includes(p.paymentId))).toBe(true);
    expect(
      (
        await eventually(
          () => attemptsOf(healthy.url),
          (rows) => rows.every((r) => r.status === 'delivered'),
        )
      ).length,
    ).toBe(fine.length);

    // All the while the hanging receiver held exactly its share, and none of its requests has ended.
    expect(hanging.requests).toHaveLength(8);
    expect(hanging.open()).toBe(8);
    expect((await attemptsOf(hanging.url)).every((r) => r.attempts === 0)).toBe(true);

    // Once it answers, its backlog goes through too: each notification once.
    releaseHanging();
    hanging.answer(() => ({ status: 200 }));
    await eventually(
      () => attemptsOf(hanging.url),
      (rows) => rows.every((r) => r.status === 'delivered'),
    );
    for (const p of stuck) expect(hanging.requests.filter((r) => r.body.includes(p.paymentId))).toHaveLength(1);
  }, 60_000);
});
