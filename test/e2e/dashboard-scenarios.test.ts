// A scenario run with one click, in a real chromium: the merchant signs in, opens the Developer
// page, runs transfer-pays from its row of DemoBank's scenario table and lands on the payment it
// made, paid. The table shows the commands of its rows as code, not as Markdown's backticks.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { SCENARIOS } from '../../src/bank/demo-bank-scenarios.js';
import { launchBrowser } from '../helpers/browser.js';
import { CHOSEN_PASSWORD, useTestServer } from '../helpers/server.js';

let browser: Browser;
let user: DashboardCredentials;
let page: Page;

const setup = useTestServer({}, { name: 'Teapots' });
beforeAll(async () => {
  browser = await launchBrowser();
  user = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@teapots.example' });
  page = await (await browser.newContext()).newPage();
  await page.goto(`${setup.server.baseUrl}/dashboard`);
  await page.fill('#email', user.email);
  await page.fill('#password', user.password);
  await page.click('#sign-in');
  expect(new URL(page.url()).pathname).toBe('/dashboard');
});
afterAll(async () => {
  await browser?.close();
});

describe("DemoBank's scenarios in the dashboard", () => {
  it('runs transfer-pays with one click and opens the payment it made, done', async () => {
    await page.goto(`${setup.server.baseUrl}/dashboard`);
    await page.click('nav >> text=Desarrollo');
    expect(await page.locator('table.scenarios button').count()).toBe(SCENARIOS.length);
    await page.click('#run-transfer-pays');
    expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/payments\/[a-z0-9]{12}$/);
    expect(await page.getAttribute('#status .pill', 'data-value')).toBe('status: done · status_detail: normal');
    expect(await page.textContent('main')).toContain('Scenario transfer-pays');
  });

  it.each(['es', 'en'])('shows the commands of the table as code, with no backtick (%s)', async (lang) => {
    await page.goto(`${setup.server.baseUrl}/dashboard/developer?lang=${lang}`);
    expect(await page.innerText('main')).not.toContain('`');
    expect(await page.locator('table.scenarios td code', { hasText: 'quipu demobank confirm|fail' }).count()).toBe(1);
  });
});
