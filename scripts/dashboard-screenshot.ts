// Takes the dashboard's screenshots in docs/: a Quipu server on a fresh database, an account seeded
// through the same use cases as the API and the pages (test/helpers/dashboard-seed.ts: payments in
// every state, a delivered notification, emails, a subscription) and three weeks of payments paid at
// DemoBank, some refunded, one left uncertain (the developer clock moved a day at a time), and chromium signed in to its dashboard in
// English, at 1280 and 390 px wide: the home, the payments list, a payment, an event, the developer
// page and its inbox, the request log (docs/dashboard-<page>-<width>.png; docs/dashboard.png is the home at 1280).
//   node --import tsx scripts/dashboard-screenshot.ts [page ...]   (e.g. `event`: only those pages' files)
import { createPayment } from '../src/app/create-payment.js';
import { moveClock } from '../src/app/developer-clock.js';
import { payWithDemoBank } from '../src/app/pay-with-demobank.js';
import { refundPayment } from '../src/app/refund-payment.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { SEEDED_ACCOUNT, seedDashboard } from '../test/helpers/dashboard-seed.js';
import { startTestServer } from '../test/helpers/test-server.js';

const docs = (file: string) => new URL(`../docs/${file}`, import.meta.url).pathname;
const SUBJECTS = ['Green teapot', 'Black kettle', 'Tea sampler', 'Porcelain cups', 'Gift card'];
const WIDTHS = [1280, 390];

const server = await startTestServer();
try {
  const account = await server.account(SEEDED_ACCOUNT);
  const { merchant } = account;
  for (let day = 0; day < 21; day++) {
    if (day > 0) await moveClock(server.ctx, { advance: '1d' });
    for (let n = 0; n < 1 + ((day * 7) % 5); n++) {
      const amount = 5000 + ((day * 13 + n * 29) % 40) * 1000;
      const payment = await createPayment(server.ctx, merchant, 'v3', {
        amount,
        currency: 'CLP',
        subject: `${SUBJECTS[(day + n) % SUBJECTS.length]} #${day * 10 + n}`,
      });
      const kind = (day + n) % 9;
      if (kind === 3 || kind === 7) continue;
      await payWithDemoBank(server.ctx, payment.paymentId, kind === 8 && day > 17 ? 'uncertain' : 'pay');
      if (kind === 1) await refundPayment(server.ctx, merchant, payment.paymentId, undefined);
      if (kind === 5) await refundPayment(server.ctx, merchant, payment.paymentId, '2000');
    }
  }
  // Today's payments in every state come last, so the lists show them first.
  const seeded = await seedDashboard(server, account);
  // The request log shows what the API answered: a create with a misspelled field, a refusal, reads.
  const api = (path: string, body?: object) =>
    fetch(`${server.baseUrl}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'x-api-key': account.api_key, ...(body && { 'content-type': 'application/json' }) },
      body: body && JSON.stringify(body),
    });
  const created = (await (
    await api('/v3/payments', { amount: 12000, currency: 'CLP', subject: 'Green teapot', notifyurl: 'https://shop.example/notify' })
  ).json()) as {
    payment_id: string;
  };
  await api(`/v3/payments/${created.payment_id}`);
  await api('/v3/payments', { amount: -5, currency: 'CLP', subject: 'Black kettle' });
  await api('/v3/banks');
  const only = process.argv.slice(2);
  const all: [name: string, path: string, section?: string][] = [
    ['home', '/dashboard'],
    ['payments', '/dashboard/payments'],
    ['payment', `/dashboard/payments/${seeded.paid}`],
    ['event', `/dashboard/events/${seeded.notification}`],
    ['developer', '/dashboard/developer'],
    ['inbox', '/dashboard/developer', '#inbox'],
    ['requests', '/dashboard/requests'],
  ];
  const pages = all.filter(([name]) => only.length === 0 || only.includes(name));
  const browser = await launchBrowser();
  try {
    for (const width of WIDTHS) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${server.baseUrl}/dashboard/sign-in?lang=en`);
      await page.fill('#email', seeded.user.email);
      await page.fill('#password', seeded.user.password);
      await page.click('#sign-in');
      for (const [name, path, section] of pages) {
        await page.goto(`${server.baseUrl}${path}`);
        const file = docs(`dashboard-${name}-${width}.png`);
        // A phone's screenshot shows the first two screens of a long page (fifty payments stacked run to metres).
        const height = Math.min(Number(await page.evaluate('document.documentElement.scrollHeight')), width < 600 ? 1700 : 4000);
        if (section) await page.locator(section).screenshot({ path: file });
        else await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width, height } });
        if (name === 'home' && width === 1280) await page.screenshot({ path: docs('dashboard.png'), fullPage: true });
        console.log(`wrote ${file}`);
      }
      await page.close();
    }
  } finally {
    await browser.close();
  }
} finally {
  await server.close();
}
