// Takes docs/dashboard.png: a Quipu server on a fresh database, an account whose payments span
// three weeks (created and paid at DemoBank through the same use cases as the API and the pages,
// the developer clock moved a day at a time), and chromium signed in to its dashboard's home.
//   node --import tsx scripts/dashboard-screenshot.ts
import { addDashboardUser } from '../src/app/add-dashboard-user.js';
import { createPayment } from '../src/app/create-payment.js';
import { moveClock } from '../src/app/developer-clock.js';
import { payWithDemoBank } from '../src/app/pay-with-demobank.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { CHOSEN_PASSWORD, startTestServer } from '../test/helpers/server.js';

const OUTPUT = new URL('../docs/dashboard.png', import.meta.url).pathname;
const SUBJECTS = ['Green teapot', 'Black kettle', 'Tea sampler', 'Porcelain cups', 'Gift card'];

const server = await startTestServer();
try {
  const account = await server.account({ name: 'Teapots & Co', features: { refunds: true, confirm: true } });
  const user = await addDashboardUser(server.ctx, account.receiver_id, { email: 'owner@teapots.example', password: CHOSEN_PASSWORD });
  for (let day = 0; day < 21; day++) {
    for (let n = 0; n < 1 + ((day * 7) % 5); n++) {
      const amount = 5000 + ((day * 13 + n * 29) % 40) * 1000;
      const payment = await createPayment(server.ctx, account.merchant, 'v3', {
        amount,
        currency: 'CLP',
        subject: `${SUBJECTS[(day + n) % SUBJECTS.length]} #${day * 10 + n}`,
      });
      if ((day + n) % 4 !== 3) await payWithDemoBank(server.ctx, payment.paymentId, 'pay');
    }
    await moveClock(server.ctx, { advance: '1d' });
  }
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${server.baseUrl}/dashboard/sign-in?lang=en`);
  await page.fill('#email', user.email);
  await page.fill('#password', user.password);
  await page.click('#sign-in');
  await page.screenshot({ path: OUTPUT, fullPage: true });
  await browser.close();
  console.log(`wrote ${OUTPUT}`);
} finally {
  await server.close();
}
