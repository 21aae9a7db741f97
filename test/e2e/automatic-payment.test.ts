// The automatic payment cycle as a merchant and a payer go through it, with the background jobs and
// the delivery worker running as in `quipu serve`: the merchant creates a subscription; the payer
// signs its mandate at DemoBank in a real chromium and lands on return_url; the merchant receives
// the signed `enabled` notification, charges the subscription, and once the developer clock passes
// the next bank business day receives the 3.0 notification of the reconciled charge.
import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COORDINATES } from '../../src/bank/demo-bank-scenarios.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { nextBusinessDay } from '../../src/domain/business-days.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { launchBrowser } from '../helpers/browser.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, type ReceivedRequest, type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';

let browser: Browser;
let page: Page;
let shop: Receiver;
let hooks: Receiver;
let worker: DeliveryWorker;
let runner: JobRunner;

const setup = useTestServer({}, { name: 'Gimnasio Andes' });
beforeAll(async () => {
  browser = await launchBrowser();
  // The signing pages run no script: the payer's browser needs none.
  page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  shop = await startReceiver(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<h1>Back at the gym</h1>' }));
  hooks = await startReceiver();
  worker = testWorker(setup.server);
  runner = new JobRunner(setup.server.ctx, JOBS, { pollMs: 20, leaseMs: 10_000 });
  runner.start();
});
afterAll(async () => {
  await runner?.stop();
  await worker?.stop();
  await browser?.close();
  await shop?.close();
  await hooks?.close();
});

const api = () => client(setup.server.baseUrl, setup.account.api_key);
const shopUrl = (path: string) => shop.url.replace('/notify', path);
const hookUrl = (path: string) => hooks.url.replace('/notify', path);
const arrivedAt = (path: string) => (requests: ReceivedRequest[]) => requests.some((r) => r.path === path);

function signedBy(secret: string, request: ReceivedRequest): boolean {
  const [, t, s] = /^t=(\d+),s=(.+)$/.exec(String(request.headers['x-khipu-signature'])) ?? [];
  return s !== undefined && createHmac('sha256', secret).update(`${t}.${request.body}`).digest('base64') === s;
}

describe('an automatic payment, from the subscription to the reconciled charge', () => {
  it('signs the mandate in a browser, charges it, and notifies the merchant of each step, signed', async () => {
    const created = await api().post('/v1/automatic-payment/subscription', {
      name: 'Plan mensual',
      email: 'socia@example.com',
      max_amount: 30000,
      currency: 'CLP',
      service_reference: 'SOCIO-42',
      description: 'Cuota mensual del gimnasio',
      notify_url: hookUrl('/subscription'),
      return_url: shopUrl('/signed'),
      cancel_url: shopUrl('/cancelled'),
    });
    expect(created.status).toBe(200);
    const { subscription_id: subscriptionId, redirect_url: redirectUrl } = created.body as { subscription_id: string; redirect_url: string };

    await page.goto(redirectUrl);
    expect(await page.textContent('dd.merchant')).toBe('Gimnasio Andes');
    expect(await page.textContent('dd.service-reference')).toBe('SOCIO-42');
    await page.check('input[value=Bawdf]');
    await page.click('#continue');
    await page.fill('#rut', '11.111.111-1');
    await page.fill('#password', '1234');
    await page.click('#login');
    await page.fill('#c1', DEMO_COORDINATES.pay[0]);
    await page.fill('#c2', DEMO_COORDINATES.pay[1]);
    await page.fill('#c3', DEMO_COORDINATES.pay[2]);
    await page.click('#sign');
    await page.waitForURL(shopUrl('/signed'));
    expect(await page.textContent('h1')).toBe('Back at the gym');

    await hooks.waitFor(arrivedAt('/subscription'));
    const signing = hooks.requests.find((r) => r.path === '/subscription')!;
    expect(signedBy(setup.account.secret, signing)).toBe(true);
    expect(JSON.parse(signing.body)).toEqual({ subscription_id: subscriptionId, status: 'enabled' });
    expect((await api().get(`/v1/automatic-payment/subscription/${subscriptionId}`)).body).toMatchObject({ status: 'ENABLED', customer_bank_code: 'Bawdf' });

    const charge = await api().post('/v1/automatic-payment/charge-intent', {
      subscription_id: subscriptionId,
      amount: 25000,
      subject: 'Cuota de noviembre',
      body: 'Plan mensual, noviembre',
      error_response_url: hookUrl('/charge-error'),
      custom: 'socio=42',
      transaction_id: 'FAC-1001',
      notify_url: hookUrl('/charge'),
      notify_api_version: '3.0',
    });
    expect(charge.status).toBe(200);
    const paymentId: string = charge.body.payment_id;

    // The debit job submits the charge to DemoBank: the payment is verifying until it settles.
    await eventually(
      () => api().get(`/v3/payments/${paymentId}`),
      (res) => res.body.status === 'verifying',
    );
    const now = new Date((await api().get('/sandbox/clock')).body.now);
    const moved = await api().post('/sandbox/clock', { to: new Date(nextBusinessDay(now).getTime() + 60_000).toISOString() });
    expect(moved.status).toBe(200);

    await hooks.waitFor(arrivedAt('/charge'));
    const notification = hooks.requests.find((r) => r.path === '/charge')!;
    expect(signedBy(setup.account.secret, notification)).toBe(true);
    expect(JSON.parse(notification.body)).toMatchObject({
      payment_id: paymentId,
      receiver_id: setup.account.receiver_id,
      amount: '25000.0000',
      currency: 'CLP',
      transaction_id: 'FAC-1001',
      custom: 'socio=42',
      bank_id: 'Bawdf',
      personal_identifier: '11.111.111-1',
    });
    expect((await api().get(`/v3/payments/${paymentId}`)).body).toMatchObject({ status: 'done', status_detail: 'normal', transaction_id: 'FAC-1001' });
    expect(hooks.requests.filter((r) => r.path === '/charge-error')).toEqual([]);
  });
});
