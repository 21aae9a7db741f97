// The merchant's day in the dashboard, in a real chromium: sign in, find a payment created through
// the API by searching its subject, pay it at DemoBank, see its notification's attempts at the
// merchant's endpoint, send it again, refund it, read the collection email as the payer sees it,
// move the developer clock and reset it, sign out. Every value the merchant and the payer wrote is
// hostile markup: no dialog may ever open.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { launchBrowser } from '../helpers/browser.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { CHOSEN_PASSWORD, useTestServer } from '../helpers/server.js';

const XSS = '<img src=x onerror=alert(1)><script>alert(2)</script>';

let browser: Browser;
let hooks: Receiver;
let worker: DeliveryWorker;
let user: DashboardCredentials;
let page: Page;
const dialogs: string[] = [];

const setup = useTestServer({}, { name: `Teapots ${XSS}`, features: { refunds: true } });
beforeAll(async () => {
  browser = await launchBrowser();
  hooks = await startReceiver();
  worker = testWorker(setup.server);
  user = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@teapots.example' });
  page = await (await browser.newContext()).newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
});
afterAll(async () => {
  await worker?.stop();
  await browser?.close();
  await hooks?.close();
});

const api = () => client(setup.server.baseUrl, setup.account.api_key);

describe('the dashboard in a browser', () => {
  it('takes a merchant from sign-in to sign-out through a payment’s whole life', async () => {
    const created = await api().post('/v3/payments', {
      amount: 4000,
      currency: 'CLP',
      subject: `Green teapot ${XSS}`,
      body: `Body ${XSS}`,
      custom: `Custom ${XSS}`,
      notify_url: hooks.url,
      payer_email: 'ana@example.com',
      payer_name: `Ana ${XSS}`,
      send_email: true,
    });
    expect(created.status).toBe(200);
    const paymentId = created.body.payment_id as string;
    await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Black kettle' });

    await page.goto(`${setup.server.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await page.fill('#email', user.email);
    await page.fill('#password', 'a wrong password');
    await page.click('#sign-in');
    expect(await page.textContent('.error')).toContain('El correo o la contraseña no son correctos.');
    await page.fill('#password', user.password);
    await page.click('#sign-in');
    expect(new URL(page.url()).pathname).toBe('/dashboard');

    await page.click('nav >> text=Pagos');
    await page.fill('#q', 'green teapot');
    // count() does not wait: the filtered page must have loaded first (on a loaded machine it had not).
    await Promise.all([page.waitForURL((url) => url.searchParams.get('q') === 'green teapot'), page.click('#filter')]);
    expect(await page.locator('table.payments tbody tr').count()).toBe(1);
    expect(await page.textContent('table.payments .subject')).toBe(`Green teapot ${XSS}`);
    await page.click('table.payments .subject');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/payments/${paymentId}`);

    await page.click('#demobank-pay');
    expect(await page.textContent('#status')).toBe('Pagado');
    expect(await page.getAttribute('#status .pill', 'title')).toBe('status: done · status_detail: normal');
    await eventually(
      async () => hooks.requests.length,
      (n) => n >= 1,
    );
    await eventually(
      async () => {
        await page.reload();
        return page.locator('.message', { hasText: 'payment.notification.3.0' }).locator('tr.attempt').count();
      },
      (n) => n >= 1,
    );
    const notification = page.locator('.message', { hasText: 'payment.notification.3.0' });
    expect(await notification.locator('tr.attempt .outcome').first().textContent()).toBe('Entregado');

    await notification.locator('button.resend').click();
    expect(await page.textContent('#notice')).toContain('El mensaje se enviará de nuevo ahora.');
    await eventually(
      async () => hooks.requests.length,
      (n) => n >= 2,
    );

    await page.fill('#refund-amount', '1500');
    await page.click('#refund');
    expect(await page.textContent('h1')).toBe('¿Reembolsar $1.500?');
    await page.click('#confirm');
    expect(await page.textContent('#notice')).toContain('Reembolso registrado.');
    expect(await page.textContent('.timeline')).toContain('Reembolso de $1.500');
    expect((await api().get(`/v3/payments/${paymentId}`)).body.status_detail).toBe('normal');

    await page.click('nav >> text=Desarrollo');
    await eventually(
      async () => {
        await page.reload();
        return page.locator('table.inbox .email-subject').count();
      },
      (n) => n >= 1,
    );
    await page.locator('table.inbox .email-subject').first().click();
    expect(await page.textContent('#email-to')).toContain('ana@example.com');
    const email = page.frameLocator('iframe.email');
    expect(await email.locator('body').textContent()).toContain(`Green teapot ${XSS}`);

    await page.click('nav >> text=Desarrollo');
    await page.fill('#advance', '2d');
    await page.click('#advance-clock');
    expect(await page.textContent('#clock-offset')).toBe('+2d');
    await page.click('#reset-clock');
    expect(await page.textContent('#clock-offset')).toBe('0');

    await page.click('details.account summary');
    await page.click('#sign-out');
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await page.goto(`${setup.server.baseUrl}/dashboard/payments/${paymentId}`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    expect(dialogs).toEqual([]);
  });
});
