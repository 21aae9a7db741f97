// Accountability reports. A receiver opened through POST /v3/receivers with a rendition_url is
// told there, once per funds delivery, which payments were paid out, what each brought and the
// total: signed like a 3.0 notification, retried for two days, refused at delivery when a
// production account's URL leads to a private address. The deliveries are made by the
// housekeeping function, called here after the developer clock passed the delivery date.
import { moveClock as moveInstallationClock } from '../../src/app/developer-clock.js';
import { createHmac } from 'node:crypto';
import dns from 'node:dns/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverFunds } from '../../src/app/deliver-funds.js';
import { markPaid } from '../../src/app/mark-paid.js';
import { MERCHANT_TOPIC } from '../../src/app/merchant-directory.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { DELIVERY_WINDOW_MS, MAX_ATTEMPTS } from '../../src/domain/retry-schedule.js';
import { listAttemptRows, listMessageRows } from '../../src/store/messages.js';
import type { MessageRow } from '../../src/store/schema.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { freePort, quipu } from '../helpers/process.js';
import { openReceiver, type OpenedReceiver, validReceiver } from '../helpers/receivers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const DAY = 86_400_000;
// No notify_url: these receivers' payment notifications are not what is under test.
const RECEIVER_FIELDS = Object.fromEntries(Object.entries(validReceiver).filter(([field]) => field !== 'notify_url'));

let server: TestServer;
let worker: DeliveryWorker;
let integrator: TestAccount;
let reports: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  worker = testWorker(server);
  integrator = await server.account({ features: { integrator: true } });
  reports = await startReceiver();
});
afterAll(async () => {
  await worker?.stop();
  await reports?.close();
  await server?.close();
});

async function createPayment(child: OpenedReceiver, fields: Record<string, unknown>): Promise<string> {
  const created = await child.api('POST', '/v3/payments', { currency: 'CLP', ...fields });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

/** A payment paid by bank transfer (reconciled). */
async function paidPayment(on: TestServer, child: OpenedReceiver, fields: Record<string, unknown>): Promise<string> {
  const paymentId = await createPayment(child, fields);
  await payByTransfer(on.ctx, (await on.ctx.merchants.byReceiverId(child.receiverId))!, paymentId);
  return paymentId;
}

async function paymentRow(on: TestServer, paymentId: string) {
  return on.ctx.db
    .selectFrom('payments')
    .select(['funds_delivery_at', 'conciliation_at', 'fund_delivery_id'])
    .where('payment_id', '=', paymentId)
    .executeTakeFirstOrThrow();
}

const fundsDueAt = async (paymentId: string, on = server) => (await paymentRow(on, paymentId)).funds_delivery_at!;
/** The installation's clock, which the integrator's receivers follow. */
const moveClock = async (body: { to: string } | { advance: string }, on = server) =>
  moveInstallationClock(on.ctx, 'to' in body ? { to: new Date(body.to) } : body);
const deliveriesOf = (receiverId: number, on = server) =>
  on.ctx.db.selectFrom('fund_deliveries').selectAll().where('receiver_id', '=', receiverId).orderBy('delivered_at').execute();
const reportsOf = async (receiverId: number, on = server) =>
  (await listMessageRows(on.ctx.db, { receiverId, kinds: ['receiver.accountability'], limit: 100 })).reverse();

/** Midday in Santiago two days on: the payments of one test then settle together whatever the hour it runs at. */
async function toMidday(): Promise<void> {
  const day = new Date(server.ctx.clock.now().getTime() + 2 * DAY);
  day.setUTCHours(15, 0, 0, 0);
  await moveClock({ to: day.toISOString() });
}

/** The only report of a receiver, once its delivery has been attempted. */
async function attemptedReport(receiverId: number, on = server): Promise<{ message: MessageRow; attempts: Awaited<ReturnType<typeof listAttemptRows>> }> {
  return eventually(
    async () => {
      const [message] = await reportsOf(receiverId, on);
      return { message: message!, attempts: message ? await listAttemptRows(on.ctx.db, message.message_id) : [] };
    },
    // The message and its attempts are two reads: an attempt committed in between shows in one only.
    (r) => r.attempts.length > 0 && r.message.attempts === r.attempts.length,
  );
}

describe('a funds delivery', () => {
  it('is reported once to the rendition_url, signed with the receiver secret, with every payment it paid out', async () => {
    const child = await openReceiver(server, integrator, { ...RECEIVER_FIELDS, rendition_url: reports.url });
    expect((await server.ctx.merchants.byReceiverId(child.receiverId))!.renditionUrl).toBe(reports.url);
    await updateMerchant(server.ctx, child.receiverId, { features: { confirm: true, refunds: true } });
    await toMidday();

    const refundedInPart = await paidPayment(server, child, { amount: 1000, subject: 'Order 1/2', transaction_id: 'T-1' });
    const whole = await paidPayment(server, child, { amount: 2500, subject: 'Order 2' });
    const reversed = await paidPayment(server, child, { amount: 700, subject: 'Order 3' });
    const unconfirmed = await paidPayment(server, child, { amount: 900, subject: 'Order 4' });
    const marked = await createPayment(child, { amount: 800, subject: 'Order 5' });
    await markPaid(server.ctx, (await server.ctx.merchants.byReceiverId(child.receiverId))!, marked);
    for (const id of [refundedInPart, whole, reversed]) expect((await child.api('POST', `/v3/payments/${id}/confirm`)).status).toBe(200);
    expect((await child.api('POST', `/v3/payments/${refundedInPart}/refunds`, { amount: 300 })).status).toBe(200);
    expect((await child.api('POST', `/v3/payments/${reversed}/refunds`)).status).toBe(200);

    const due = await fundsDueAt(whole);
    expect(await fundsDueAt(refundedInPart)).toBe(due);
    expect(await deliverFunds(server.ctx)).toBe(0);
    await moveClock({ to: new Date(due).toISOString() });
    expect(await deliverFunds(server.ctx)).toBe(1);

    const [delivery, ...others] = await deliveriesOf(child.receiverId);
    expect(others).toEqual([]);
    expect(delivery).toEqual({
      delivery_id: expect.any(String),
      receiver_id: child.receiverId,
      currency: 'CLP',
      delivered_at: due,
      total: 32_000_000,
      payment_count: 2,
      created_at: expect.any(Number),
    });
    const id = delivery!.delivery_id;
    for (const included of [refundedInPart, whole]) expect((await paymentRow(server, included)).fund_delivery_id).toBe(id);
    for (const left of [reversed, unconfirmed, marked]) expect((await paymentRow(server, left)).fund_delivery_id).toBeNull();

    const { message } = await eventually(
      () => attemptedReport(child.receiverId),
      (r) => r.message.status === 'delivered',
    );
    expect(message).toMatchObject({
      kind: 'receiver.accountability',
      subject_type: 'receiver',
      subject_id: String(child.receiverId),
      url: reports.url,
      signing: 'khipu-signature',
      attempts: 1,
    });
    const received = reports.requests.filter((r) => r.body.includes(id));
    expect(received).toHaveLength(1);
    const request = received[0]!;
    const conciliation = async (paymentId: string) => new Date((await paymentRow(server, paymentId)).conciliation_at!).toISOString();
    expect(request.body).toBe(
      `{"receiver_id":${child.receiverId},"delivery_id":"${id}","delivery_date":"${new Date(due).toISOString()}","currency":"CLP","payments":[` +
        `{"payment_id":"${refundedInPart}","transaction_id":"T-1","subject":"Order 1\\/2","conciliation_date":"${await conciliation(refundedInPart)}","amount":"1000.0000","refunded":"300.0000","net":"700.0000"},` +
        `{"payment_id":"${whole}","transaction_id":"","subject":"Order 2","conciliation_date":"${await conciliation(whole)}","amount":"2500.0000","refunded":"0.0000","net":"2500.0000"}` +
        '],"total":"3200.0000"}',
    );
    expect(request.body).toBe(message.body);
    expect(request.headers['content-type']).toBe('application/json');
    const [, t, s] = /^t=(\d+),s=(.+)$/.exec(String(request.headers['x-khipu-signature']))!;
    expect(createHmac('sha256', child.secret).update(`${t}.${request.body}`).digest('base64')).toBe(s);
    expect(Number(t)).toBeGreaterThanOrEqual(due);

    // A second run finds nothing new to deliver or report.
    const deliveries = await countRows(server.ctx.db, 'fund_deliveries');
    expect(await deliverFunds(server.ctx)).toBe(0);
    expect(await countRows(server.ctx.db, 'fund_deliveries')).toBe(deliveries);
    expect(await reportsOf(child.receiverId)).toHaveLength(1);
  });

  it('is one per settlement: payments due on different days make a delivery and a report each', async () => {
    const child = await openReceiver(server, integrator, { ...RECEIVER_FIELDS, rendition_url: reports.url });
    const silent = await openReceiver(server, integrator, { ...RECEIVER_FIELDS });
    await toMidday();
    const first = await paidPayment(server, child, { amount: 1000, subject: 'Monday' });
    const firstDue = await fundsDueAt(first);
    const unreported = await paidPayment(server, silent, { amount: 1000, subject: 'Nobody listens' });
    await moveClock({ to: new Date(firstDue).toISOString() });
    const second = await paidPayment(server, child, { amount: 2000, subject: 'Tuesday' });
    const secondDue = await fundsDueAt(second);
    expect(secondDue).toBeGreaterThan(firstDue);
    await moveClock({ to: new Date(secondDue).toISOString() });

    expect(await deliverFunds(server.ctx)).toBe(3);
    const deliveries = await deliveriesOf(child.receiverId);
    expect(deliveries.map((d) => [d.delivered_at, d.total, d.payment_count])).toEqual([
      [firstDue, 10_000_000, 1],
      [secondDue, 20_000_000, 1],
    ]);
    const bodies = (await reportsOf(child.receiverId)).map((m) => JSON.parse(m.body));
    expect(bodies.map((b) => [b.delivery_id, b.delivery_date, b.payments.map((p: { payment_id: string }) => p.payment_id), b.total]).sort()).toEqual(
      [
        [deliveries[0]!.delivery_id, new Date(firstDue).toISOString(), [first], '1000.0000'],
        [deliveries[1]!.delivery_id, new Date(secondDue).toISOString(), [second], '2000.0000'],
      ].sort(),
    );

    // A receiver without a rendition_url has its delivery recorded all the same, and nothing sent.
    const [recorded] = await deliveriesOf(silent.receiverId);
    expect(recorded).toMatchObject({ delivered_at: firstDue, total: 10_000_000, payment_count: 1 });
    expect((await paymentRow(server, unreported)).fund_delivery_id).toBe(recorded!.delivery_id);
    expect(await reportsOf(silent.receiverId)).toEqual([]);
  });

  it('is retried for two days at a failing or unreachable rendition_url, every attempt logged, then given up', async () => {
    const failing = await startReceiver(() => ({ status: 500, body: 'not yet' }));
    try {
      const refusing = await openReceiver(server, integrator, { ...RECEIVER_FIELDS, rendition_url: failing.url });
      const unreachable = await openReceiver(server, integrator, { ...RECEIVER_FIELDS, rendition_url: `http://127.0.0.1:${await freePort()}/rendition` });
      const payments = [
        await paidPayment(server, refusing, { amount: 1000, subject: 'Failing' }),
        await paidPayment(server, unreachable, { amount: 1000, subject: 'Unreachable' }),
      ];
      await moveClock({ to: new Date(Math.max(...(await Promise.all(payments.map((p) => fundsDueAt(p)))))).toISOString() });
      expect(await deliverFunds(server.ctx)).toBe(2);

      const refused = await attemptedReport(refusing.receiverId);
      expect(refused.message).toMatchObject({ status: 'pending', attempts: 1 });
      expect(refused.attempts[0]).toMatchObject({
        number: 1,
        trigger: 'first',
        outcome: 'failed',
        status_code: 500,
        error: 'HTTP 500',
        response_excerpt: 'not yet',
      });
      const unanswered = await attemptedReport(unreachable.receiverId);
      expect(unanswered.message.status).toBe('pending');
      expect(unanswered.attempts[0]).toMatchObject({ number: 1, outcome: 'failed', status_code: null, error: expect.stringContaining('ECONNREFUSED') });

      await moveClock({ advance: '2d' });
      for (const child of [refusing, unreachable]) {
        const { message, attempts } = await eventually(
          () => attemptedReport(child.receiverId),
          (r) => r.message.status !== 'pending',
          30_000,
        );
        expect(message).toMatchObject({ status: 'exhausted', attempts: MAX_ATTEMPTS, next_attempt_at: null, delivered_at: null });
        expect(attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(attempts.map((a) => a.trigger)).toEqual(['first', ...new Array(8).fill('retry')]);
        expect(attempts.every((a) => a.outcome === 'failed')).toBe(true);
        expect(attempts.at(-1)!.due_at - attempts[0]!.due_at).toBeLessThanOrEqual(DELIVERY_WINDOW_MS);
      }
      expect(failing.requests).toHaveLength(MAX_ATTEMPTS);
    } finally {
      await failing.close();
    }
  }, 60_000);
});

describe('rendition_url of production accounts', () => {
  // A server of its own: production accounts stop the developer clock of their installation, so
  // the funds are made due (and the clock moved) before the accounts become production ones.
  let prod: TestServer;
  let prodWorker: DeliveryWorker;
  let local: Receiver;
  let env: Record<string, string>;
  let legacy: OpenedReceiver;
  let named: OpenedReceiver | undefined;
  let resolvedHost: { host: string; address: string } | undefined;

  beforeAll(async () => {
    prod = await startTestServer();
    prodWorker = testWorker(prod);
    local = await startReceiver();
    env = { DATABASE_URL: prod.database.url, DATA_DIR: prod.database.dataDir, LOG_LEVEL: 'warn' };
    const developerIntegrator = await prod.account({ features: { integrator: true } });
    legacy = await openReceiver(prod, developerIntegrator, { ...RECEIVER_FIELDS, rendition_url: 'https://shop.example/rendition' });
    const dues = [await fundsDueAt(await paidPayment(prod, legacy, { amount: 1000, subject: 'Legacy' }), prod)];
    // The machine's own name is the one name sure to resolve here to one of its own addresses.
    const host = os.hostname();
    const resolved = await dns.lookup(host, { all: true }).catch(() => []);
    if (resolved.length > 0 && resolved.every((r) => /^(127\.|::1$)/.test(r.address))) {
      resolvedHost = { host, address: resolved[0]!.address };
      named = await openReceiver(prod, developerIntegrator, { ...RECEIVER_FIELDS, rendition_url: local.url.replace('127.0.0.1', host) });
      dues.push(await fundsDueAt(await paidPayment(prod, named, { amount: 1000, subject: 'Named' }), prod));
    }
    await moveClock({ to: new Date(Math.max(...dues)).toISOString() }, prod);

    await updateMerchant(prod.ctx, legacy.receiverId, { developer: false });
    // A rendition_url kept from before today's rule (the migration takes it from the account's
    // profile as it was sent): nothing checked its host then.
    await prod.ctx.db.updateTable('merchants').set({ rendition_url: local.url }).where('receiver_id', '=', legacy.receiverId).execute();
    await prod.ctx.feed.publish(prod.ctx.db, MERCHANT_TOPIC, String(legacy.receiverId));
    // A name is only judged at delivery, by the addresses it resolves to.
    if (named) await updateMerchant(prod.ctx, named.receiverId, { developer: false });
  });
  afterAll(async () => {
    await prodWorker?.stop();
    await local?.close();
    await prod?.close();
  });

  it('are refused at delivery when they lead to a private address, the reason logged, nothing sent', async () => {
    expect(await deliverFunds(prod.ctx)).toBe(named ? 2 : 1);
    const literal = await attemptedReport(legacy.receiverId, prod);
    expect(literal.attempts[0]).toMatchObject({
      outcome: 'failed',
      status_code: null,
      error: expect.stringMatching(/^refused: 127\.0\.0\.1 is a loopback address; only public internet addresses may be notified/),
    });
    if (named && resolvedHost) {
      const resolved = await attemptedReport(named.receiverId, prod);
      expect(resolved.attempts[0]!.error).toMatch(
        new RegExp(`^refused: ${resolvedHost.host} resolves to ${resolvedHost.address.replace(/\./g, '\\.')}, a loopback address`),
      );
    }
    expect(local.requests).toEqual([]);
  });

  it('are refused when a production integrator opens a receiver, naming rendition_url', async () => {
    const productionIntegrator = await prod.account({ developer: false, features: { integrator: true } });
    const api = client(prod.baseUrl, productionIntegrator.api_key);
    const before = await countRows(prod.ctx.db, 'merchants');
    const one = await api.post('/v3/receivers', { ...RECEIVER_FIELDS, rendition_url: 'http://10.0.0.1/rendition' });
    expect(one.status).toBe(400);
    expect(one.body.errors).toEqual([
      { field: 'rendition_url', message: expect.stringContaining('is a private address; only public internet addresses may be notified') },
    ]);
    const both = await api.post('/v3/receivers', { ...RECEIVER_FIELDS, notify_url: 'http://169.254.169.254/n', rendition_url: 'http://localhost/rendition' });
    expect(both.status).toBe(400);
    expect(both.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['notify_url', 'rendition_url']);
    expect(await countRows(prod.ctx.db, 'merchants')).toBe(before);
    const accepted = await api.post('/v3/receivers', { ...RECEIVER_FIELDS, rendition_url: 'https://8.8.8.8/rendition' });
    expect(accepted.status).toBe(200);
    expect((await prod.ctx.merchants.byReceiverId(Number(accepted.body.receiver_id)))!.renditionUrl).toBe('https://8.8.8.8/rendition');
  });

  it('are set, shown and refused the same way by `quipu merchants`', async () => {
    const refused = await quipu(['merchants', 'create', '--name', 'Real shop', '--production', '--rendition-url', 'http://127.0.0.1:9/rendition'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/rendition_url: is a loopback address; only public internet addresses may be notified/);

    const created = await quipu(['merchants', 'create', '--name', 'Local shop', '--rendition-url', local.url, '--json'], env);
    expect(created.code).toBe(0);
    const id = String(JSON.parse(created.stdout).receiver_id);
    expect(JSON.parse((await quipu(['merchants', 'show', id, '--json'], env)).stdout).rendition_url).toBe(local.url);
    // Moving the account to production checks its rendition_url again.
    const toProduction = await quipu(['merchants', 'update', id, '--production'], env);
    expect(toProduction.code).toBe(2);
    expect(toProduction.stderr).toContain('rendition_url: is a loopback address');
    const removed = JSON.parse((await quipu(['merchants', 'update', id, '--no-rendition-url', '--production', '--json'], env)).stdout);
    expect(removed).toMatchObject({ developer: false, rendition_url: null });
    const privateOne = await quipu(['merchants', 'update', id, '--rendition-url', 'http://192.168.1.20/rendition'], env);
    expect(privateOne.code).toBe(2);
    expect(privateOne.stderr).toContain('rendition_url: is a private address');
    const set = JSON.parse((await quipu(['merchants', 'update', id, '--rendition-url', 'https://shop.example/rendition', '--json'], env)).stdout);
    expect(set.rendition_url).toBe('https://shop.example/rendition');
    expect(JSON.parse((await quipu(['merchants', 'show', id, '--json'], env)).stdout).rendition_url).toBe('https://shop.example/rendition');
  }, 60_000);
});
