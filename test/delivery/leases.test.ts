// A claimed notification that waited for a free slot is only sent if its lease outlasts the
// request; otherwise it is handed back. Without that rule, a second worker could take it over
// (lease ended) while the first is still sending it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { reconciledPayment } from '../helpers/delivery.js';
import { eventually } from '../helpers/notification-receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let receiver: http.Server;
const open = new Map<string, number>();
const hits = new Map<string, number>();
let overlaps = 0;

beforeAll(async () => {
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
    const a = new DeliveryWorker(server.ctx, { ...timing, concurrency: 2, batchSize: 2 });
    const b = new DeliveryWorker(server.ctx, { ...timing, concurrency: 8, batchSize: 8 });
    a.start();
    try {
      await eventually(async () => [...open.values()].reduce((x, y) => x + y, 0), (n) => n === 2);
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
});
