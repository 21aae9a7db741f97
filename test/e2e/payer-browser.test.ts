// The payer's cycle as a person goes through it: a real chromium on the payer pages, DemoBank,
// the merchant's site (a local node:http server) and its notification endpoint.
import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { launchBrowser, payWithDemoBank } from '../helpers/browser.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { assertProviderSchema } from '../helpers/openapi.js';
import { useTestServer } from '../helpers/server.js';
import { v2Client } from '../helpers/v2-clients.js';

const OPERATOR_TOKEN = 'operator-token-for-the-payer-browser-tests';
let browser: Browser;
let shop: Receiver;
let hooks: Receiver;
let worker: DeliveryWorker;
let page: Page;

const setup = useTestServer({ OPERATOR_TOKEN });
beforeAll(async () => {
  browser = await launchBrowser();
  shop = await startReceiver(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<h1>Back at the shop</h1>' }));
  hooks = await startReceiver();
  worker = testWorker(setup.server);
});
afterAll(async () => {
  await worker?.stop();
  await browser?.close();
  await shop?.close();
  await hooks?.close();
});
beforeEach(async () => {
  page = await (await browser.newContext()).newPage();
});
afterEach(async () => {
  await page.context().close();
});

const shopUrl = (path: string) => shop.url.replace('/notify', path);
const api = () => client(setup.server.baseUrl, setup.account.api_key);

async function createPayment(fields: Record<string, unknown> = {}) {
  const created = await api().post('/v3/payments', {
    amount: 5000,
    currency: 'CLP',
    subject: 'Order 42',
    return_url: shopUrl('/return'),
    cancel_url: shopUrl('/cancel'),
    notify_url: hooks.url,
    ...fields,
  });
  expect(created.status).toBe(200);
  return created.body as { payment_id: string; payment_url: string; simplified_transfer_url: string; transfer_url: string };
}

const getPayment = async (id: string) => (await api().get(`/v3/payments/${id}`)).body;

async function clockNow(): Promise<Date> {
  return new Date((await api().get('/sandbox/clock')).body.now);
}

describe('paying with DemoBank in a browser', () => {
  it('pays, lands on return_url, and the merchant gets a signed 3.0 notification that verifies', async () => {
    const created = await createPayment();
    await payWithDemoBank(page, created.payment_url, ['11', '22', '33']);
    await page.waitForURL(shopUrl('/return'));
    expect(await page.textContent('h1')).toBe('Back at the shop');

    const paid = await getPayment(created.payment_id);
    expect(paid).toMatchObject({
      status: 'done',
      status_detail: 'normal',
      bank: 'DemoBank',
      bank_id: 'Bawdf',
      payer_email: 'payer@example.com',
      personal_identifier: '11.111.111-1',
      bank_account_number: '000000000000111111111',
      payment_method: 'simplified_transfer',
      funds_source: '',
      out_of_date_conciliation: false,
      receipt_url: expect.stringMatching(new RegExp(`^${setup.server.baseUrl}/payment/receipt/CPKH-\\d{10}-${created.payment_id}\\.pdf$`)),
    });
    expect(paid.payer_name).toContain('11.111.111-1');
    await page.goto(`${setup.server.baseUrl}/payment/receipt/${created.payment_id}`);
    expect(await page.textContent('h1')).toBe('Comprobante de pago');
    expect(await page.getAttribute('#receipt-pdf', 'href')).toBe(new URL(paid.receipt_url).pathname);

    await hooks.waitFor((requests) => requests.some((r) => r.body.includes(created.payment_id)));
    const notification = hooks.requests.find((r) => r.body.includes(created.payment_id))!;
    const [, t, s] = /^t=(\d+),s=(.+)$/.exec(String(notification.headers['x-khipu-signature']))!;
    const expected = createHmac('sha256', setup.account.secret).update(`${t}.${notification.body}`).digest('base64');
    expect(s).toBe(expected);
    const body = JSON.parse(notification.body);
    expect(body).toMatchObject({
      payment_id: created.payment_id,
      receiver_id: setup.account.receiver_id,
      amount: '5000.0000',
      bank_id: 'Bawdf',
      personal_identifier: '11.111.111-1',
    });
  });

  it('notifies with API 1.3: a token that resolves to the paid payment', async () => {
    const created = await createPayment({ notify_api_version: '1.3' });
    await payWithDemoBank(page, created.payment_url, ['11', '22', '33']);
    await page.waitForURL(shopUrl('/return'));
    const isForm = (r: { headers: Record<string, unknown> }) => String(r.headers['content-type']).startsWith('application/x-www-form-urlencoded');
    await hooks.waitFor((requests) => requests.some(isForm));
    const form = new URLSearchParams(hooks.requests.find(isForm)!.body);
    expect(form.get('api_version')).toBe('1.3');
    const token = form.get('notification_token')!;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    // The merchant resolves the token as the official v2 clients do: GET /2.0/payments?notification_token=, signed.
    const v2 = v2Client('php', setup.account, { networkUrl: setup.server.baseUrl, signedBase: `${setup.server.config.publicBaseUrl}/2.0`, prefix: '/2.0' });
    const resolved = await v2.request('GET', '/payments', { query: { notification_token: token } });
    expect(resolved.status).toBe(200);
    assertProviderSchema('payment-get-payment', resolved.body);
    expect(resolved.body).toMatchObject({ payment_id: created.payment_id, status: 'done', status_detail: 'normal', amount: 5000, notification_token: token });
    // Reconciled, a v2 payment has the v3 shape exactly, conciliation_date included.
    expect(resolved.body.conciliation_date).toEqual(expect.any(String));
    expect(resolved.body).toEqual(await getPayment(created.payment_id));
  });

  it('shows the bank error for 99 99 99, leaves the payment pending, and a new attempt pays', async () => {
    const created = await createPayment();
    await payWithDemoBank(page, created.payment_url, ['99', '99', '99']);
    await page.waitForSelector('#retry');
    expect(await page.textContent('main')).toContain('Error ejecutando transferencia');
    expect(await getPayment(created.payment_id)).toMatchObject({ status: 'pending', status_detail: 'pending' });

    await page.click('#retry');
    await page.check('input[value=Bawdf]');
    await page.fill('#payer_email', 'payer@example.com');
    await page.click('#continue');
    await page.fill('#rut', '11111111-1');
    await page.fill('#password', '1234');
    await page.click('#login');
    await page.fill('#c1', '11');
    await page.fill('#c2', '22');
    await page.fill('#c3', '33');
    await page.click('#authorize');
    await page.waitForURL(shopUrl('/return'));
    expect(await getPayment(created.payment_id)).toMatchObject({ status: 'done', status_detail: 'normal' });
  });

  it('leaves an uncertain transfer verifying until DemoBank confirms it', async () => {
    const created = await createPayment();
    await payWithDemoBank(page, created.payment_url, ['12', '34', '56']);
    await page.waitForURL(shopUrl('/return'));
    expect(await getPayment(created.payment_id)).toMatchObject({ status: 'verifying', status_detail: 'pending' });
    await page.goto(created.payment_url);
    expect(await page.textContent('h1')).toBe('Pago en verificación');

    const confirmed = await api().post(`/sandbox/demobank/payments/${created.payment_id}/confirm`);
    expect(confirmed.body).toMatchObject({ status: 'done', status_detail: 'normal' });
    expect(await getPayment(created.payment_id)).toMatchObject({ status: 'done', bank_id: 'Bawdf', personal_identifier: '11.111.111-1' });
    await hooks.waitFor((requests) => requests.some((r) => r.body.includes(created.payment_id)));
  });

  it('makes an uncertain transfer that DemoBank fails pending again, payable anew', async () => {
    const created = await createPayment();
    await payWithDemoBank(page, created.payment_url, ['45', '45', '45']);
    await page.waitForURL(shopUrl('/return'));
    expect(await getPayment(created.payment_id)).toMatchObject({ status: 'verifying' });
    const failed = await api().post(`/sandbox/demobank/payments/${created.payment_id}/fail`);
    expect(failed.body).toMatchObject({ status: 'pending', status_detail: 'pending' });
    await page.goto(created.payment_url);
    expect(await page.isVisible('#method-simplified')).toBe(true);
  });

  it('lets the payer decline: status_detail rejected-by-payer, sent to cancel_url', async () => {
    const created = await createPayment();
    await page.goto(created.payment_url);
    await page.click('#decline');
    await page.waitForURL(shopUrl('/cancel'));
    expect(await getPayment(created.payment_id)).toMatchObject({ status: 'pending', status_detail: 'rejected-by-payer' });
    await page.goto(created.payment_url);
    expect(await page.textContent('h1')).toBe('Cobro rechazado');
  });

  it('lets the payer report an unsolicited charge: marked-as-abuse, and a result page without cancel_url', async () => {
    const created = await createPayment({ cancel_url: undefined });
    await page.goto(created.payment_url);
    await page.click('#abuse');
    await page.waitForURL(`${setup.server.baseUrl}/payment/result/${created.payment_id}`);
    expect(await page.textContent('h1')).toBe('Cobro denunciado');
    expect(await getPayment(created.payment_id)).toMatchObject({ status: 'pending', status_detail: 'marked-as-abuse' });
  });

  it('refuses to pay an expired payment once the developer clock passes expires_date', async () => {
    const now = await clockNow();
    const created = await createPayment({ expires_date: new Date(now.getTime() + 3_600_000).toISOString() });
    await page.goto(created.simplified_transfer_url);
    expect(await page.isVisible('#continue')).toBe(true);
    expect((await api().post('/sandbox/clock', { advance: '2h' })).status).toBe(200);
    // The stale form of the open page is refused too.
    await page.check('input[value=Bawdf]');
    await page.fill('#payer_email', 'payer@example.com');
    await page.click('#continue');
    expect(await page.textContent('h1')).toBe('Cobro vencido');
    await page.goto(created.payment_url);
    expect(await page.textContent('h1')).toBe('Cobro vencido');
    expect(await getPayment(created.payment_id)).toMatchObject({ status: 'pending', status_detail: 'pending' });
  });

  it('reconciles a normal transfer credited after expiry, with out_of_date_conciliation', async () => {
    const now = await clockNow();
    const created = await createPayment({ expires_date: new Date(now.getTime() + 3_600_000).toISOString() });
    await page.goto(created.transfer_url);
    const account = (await page.textContent('.account'))!.trim();
    const reference = (await page.textContent('.reference'))!.trim();
    expect(reference).toBe(created.payment_id);

    const later = new Date((await api().post('/sandbox/clock', { advance: '2h' })).body.now);
    const fed = await fetch(`${setup.server.baseUrl}/operator/v1/credits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        credits: [
          {
            bank_reference: `late-${reference}`,
            account,
            amount: 5000,
            currency: 'CLP',
            reference,
            credited_at: later.toISOString(),
            payer_bank_id: 'dfFbF',
            payer_name: 'Ana Pérez',
            payer_personal_identifier: '12.345.678-5',
          },
        ],
      }),
    });
    expect(await fed.json()).toMatchObject({ matched: 1 });
    expect(await getPayment(created.payment_id)).toMatchObject({
      status: 'done',
      out_of_date_conciliation: true,
      payment_method: 'regular_transfer',
      bank: 'Banco de Chile (Edwards Citi)',
      payer_name: 'Ana Pérez',
    });
    await page.goto(`${setup.server.baseUrl}/payment/receipt/${created.payment_id}`);
    expect(await page.textContent('main')).toContain('El abono llegó después del vencimiento del cobro.');
  });
});
