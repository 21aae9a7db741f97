// A developer's day on one machine, with the background jobs and the delivery worker running as in
// `quipu serve`, driven only through the APIs, the payer pages and the developer clock: an
// integrator opens a receiver with a rendition_url; a payment emailed to its payer with reminders
// lands in the local inbox; moving the clock brings its reminder; the payer pays at DemoBank; the
// merchant's signed notification arrives, the payer's confirmation too, and the reminders stop;
// moving the clock past the delivery of the funds brings the signed accountability report. The
// events API shows it all.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { testWorker } from '../helpers/delivery.js';
import { accountWorkRan, runEveryJob } from '../helpers/jobs.js';
import { client } from '../helpers/http.js';
import { eventually, type ReceivedRequest, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { tabAtCoordinates } from '../helpers/payer-session.js';
import { openReceiver, type OpenedReceiver, validReceiver } from '../helpers/receivers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let server: TestServer;
let worker: DeliveryWorker;
let runner: JobRunner;
let integrator: TestAccount;
let notifications: Receiver;
let reports: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  worker = testWorker(server);
  runner = new JobRunner(server.ctx, JOBS, { pollMs: 20, leaseMs: 10_000 });
  runner.start();
  integrator = await server.account({ features: { integrator: true } });
  notifications = await startReceiver();
  reports = await startReceiver();
});
afterAll(async () => {
  await runner?.stop();
  await worker?.stop();
  await notifications?.close();
  await reports?.close();
  await server?.close();
});

function signedBy(secret: string, request: ReceivedRequest): boolean {
  const [, t, s] = /^t=(\d+),s=(.+)$/.exec(String(request.headers['x-khipu-signature'])) ?? [];
  return s !== undefined && createHmac('sha256', secret).update(`${t}.${request.body}`).digest('base64') === s;
}

/** Moves the child account's own clock: the integrator's, and every other account's, stay where they are. */
async function moveClockTo(child: OpenedReceiver, at: number): Promise<void> {
  expect((await child.api('POST', '/sandbox/clock', { to: new Date(at).toISOString() })).status).toBe(200);
}

async function emailsOf(child: OpenedReceiver, paymentId: string): Promise<{ kind: string; status: string; text: string }[]> {
  const res = await child.api('GET', `/quipu/v1/emails?payment_id=${paymentId}`);
  expect(res.status).toBe(200);
  return res.body.emails;
}

describe("a developer's day", () => {
  it('emails, reminds, notifies and accounts for a payment, each once, as the developer clock moves', async () => {
    const child = await openReceiver(server, integrator, { ...validReceiver, notify_url: notifications.url, rendition_url: reports.url });
    const t0 = server.ctx.clock.now().getTime();
    const expires = t0 + 3 * DAY;
    const created = await child.api('POST', '/v3/payments', {
      amount: 5000,
      currency: 'CLP',
      subject: 'Cuota de noviembre',
      send_email: true,
      send_reminders: true,
      payer_name: 'Ana Pérez',
      payer_email: 'ana@example.com',
      expires_date: new Date(expires).toISOString(),
    });
    expect(created.status).toBe(200);
    const paymentId: string = created.body.payment_id;

    // No SMTP_URL: the collection email is kept in the local inbox, with the payment's link.
    const [collection] = await eventually(
      () => emailsOf(child, paymentId),
      (list) => list.length === 1 && list[0]!.status === 'delivered',
    );
    expect(collection).toMatchObject({ kind: 'payment.email.collection' });
    expect(collection!.text).toContain(created.body.payment_url);

    // A day before expiry the reminder job writes the reminder (the one three days before fell at creation).
    await moveClockTo(child, expires - DAY + 60_000);
    const withReminder = await eventually(
      () => emailsOf(child, paymentId),
      (list) => list.length === 2 && list.every((e) => e.status === 'delivered'),
    );
    expect(withReminder.map((e) => e.kind)).toEqual(['payment.email.reminder', 'payment.email.collection']);

    // The payer pays at DemoBank; the reconciliation notifies the merchant, signed with its secret.
    const tab = await tabAtCoordinates(server.baseUrl, paymentId);
    expect((await tab.submit({ c1: '11', c2: '22', c3: '33' })).status).toBe(303);
    await notifications.waitFor((requests) => requests.some((r) => r.body.includes(paymentId)));
    const notification = notifications.requests.find((r) => r.body.includes(paymentId))!;
    expect(JSON.parse(notification.body)).toMatchObject({ payment_id: paymentId, amount: '5000.0000', receiver_id: child.receiverId });
    expect(signedBy(child.secret, notification)).toBe(true);

    // A week on: past the last reminder's time (none is written for a paid payment) and past the
    // delivery of the funds, whose accountability report reaches the rendition_url, signed.
    await moveClockTo(child, expires + 7 * DAY);
    await reports.waitFor((requests) => requests.length === 1);
    const report = reports.requests[0]!;
    expect(signedBy(child.secret, report)).toBe(true);
    const body = JSON.parse(report.body);
    expect(body).toMatchObject({ receiver_id: child.receiverId, currency: 'CLP', total: '5000.0000' });
    expect(body.payments).toEqual([expect.objectContaining({ payment_id: paymentId, amount: '5000.0000', refunded: '0.0000', net: '5000.0000' })]);
    // Another run of the account's work, and of every job over every account, changes nothing: one
    // report, three emails (the payer's confirmation the third), one notification.
    await moveClockTo(child, expires + 8 * DAY);
    await accountWorkRan(server, child.receiverId);
    await runEveryJob(server.ctx);
    expect(reports.requests).toHaveLength(1);
    expect(await emailsOf(child, paymentId)).toHaveLength(3);
    expect(notifications.requests.filter((r) => r.body.includes(paymentId))).toHaveLength(1);

    // The events API shows every message of the day, newest first.
    const events = await child.api('GET', '/quipu/v1/events');
    expect(events.status).toBe(200);
    const listed = events.body.events.map((e: { kind: string; status: string }) => [e.kind, e.status]);
    // The merchant's notification and the payer's confirmation are written at the same instant: their ids order them.
    expect([listed[0], ...listed.slice(1, 3).sort(), ...listed.slice(3)]).toEqual([
      ['receiver.accountability', 'delivered'],
      ['payment.email.confirmation', 'delivered'],
      ['payment.notification.3.0', 'delivered'],
      ['payment.email.reminder', 'delivered'],
      ['payment.email.collection', 'delivered'],
    ]);
  });
});
