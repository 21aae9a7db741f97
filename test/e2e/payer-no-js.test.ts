// The payer pages are server-rendered forms: a browser with JavaScript turned off pays with
// DemoBank, declines, and reads them in English, exactly as one with it on.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { client } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { useTestServer } from '../helpers/server.js';

let browser: Browser;
let shop: Receiver;
let page: Page;

const setup = useTestServer();
beforeAll(async () => {
  browser = await launchBrowser();
  shop = await startReceiver(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<h1>Back at the shop</h1>' }));
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
});
beforeEach(async () => {
  page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
});
afterEach(async () => {
  await page.context().close();
});

const shopUrl = (path: string) => shop.url.replace('/notify', path);
const api = () => client(setup.server.baseUrl, setup.account.api_key);
const statusOf = async (id: string) => {
  const { status, status_detail } = (await api().get(`/v3/payments/${id}`)).body;
  return `${status}/${status_detail}`;
};

async function createPayment(): Promise<{ payment_id: string; payment_url: string }> {
  const created = await api().post('/v3/payments', {
    amount: 5000,
    currency: 'CLP',
    subject: 'Order 7',
    return_url: shopUrl('/return'),
    cancel_url: shopUrl('/cancel'),
  });
  expect(created.status).toBe(200);
  return created.body;
}

describe('payer pages without JavaScript', () => {
  it('pay with DemoBank and land on return_url', async () => {
    const created = await createPayment();
    await page.goto(created.payment_url);
    await page.click('#method-simplified');
    await page.check('input[value=Bawdf]');
    await page.fill('#payer_email', 'payer@example.com');
    await page.click('#continue');
    await page.fill('#rut', '11.111.111-1');
    await page.fill('#password', '1234');
    await page.click('#login');
    await page.fill('#c1', '11');
    await page.fill('#c2', '22');
    await page.fill('#c3', '33');
    await page.click('#authorize');
    await page.waitForURL(shopUrl('/return'));
    expect(await page.textContent('h1')).toBe('Back at the shop');
    expect(await statusOf(created.payment_id)).toBe('done/normal');
    expect((await api().get(`/v3/payments/${created.payment_id}`)).body).toMatchObject({
      bank_id: 'Bawdf',
      payer_email: 'payer@example.com',
      personal_identifier: '11.111.111-1',
      payment_method: 'simplified_transfer',
    });
  });

  it('decline and land on cancel_url', async () => {
    const created = await createPayment();
    await page.goto(created.payment_url);
    await page.click('#decline');
    await page.waitForURL(shopUrl('/cancel'));
    expect(await page.textContent('h1')).toBe('Back at the shop');
    expect(await statusOf(created.payment_id)).toBe('pending/rejected-by-payer');
  });

  it('speak English when asked, and keep to it on the next page', async () => {
    const created = await createPayment();
    await page.goto(`${created.payment_url}?lang=en`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await page.click('#method-simplified');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await statusOf(created.payment_id)).toBe('pending/pending');
  });
});
