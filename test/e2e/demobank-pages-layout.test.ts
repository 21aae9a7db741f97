// DemoBank's pages as a developer meets them, in a real chromium at 1280 and 390 px: the operation
// (descriptor) pages show DemoBank's test values beside the sign-in and the coordinates, as its other
// pages do; the coordinates form stacks A1, B2 and C3 alike with the button below them; a bank's
// tile shows letters of its name, never a bracket; no page overflows sideways.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BANK_PASSWORD } from '../../src/bank/demo-bank.js';
import { DEMO_COORDINATES, DEMO_RUT } from '../../src/bank/demo-bank-scenarios.js';
import { useBrowser } from '../helpers/browser.js';
import { issueOperation } from '../helpers/operations.js';
import { useTestServer } from '../helpers/server.js';

const chromium = useBrowser();
const setup = useTestServer();

const overflows = (page: Page): Promise<boolean> =>
  page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth') as Promise<boolean>;

describe.each([1280, 390])("DemoBank's pages at %i px", (width) => {
  let page: Page;
  beforeAll(async () => {
    page = await chromium.browser.newPage({ viewport: { width, height: 900 } });
  });
  afterAll(async () => {
    await page?.close();
  });

  it("shows DemoBank's test values on the operation pages and stacks the coordinates with the button below", async () => {
    const operation = await issueOperation(setup.server.baseUrl, setup.account.api_key);
    await page.goto(`${setup.server.baseUrl}/operation/${operation.id}`);
    const login = page.locator('.test-values[data-step="operation-login"]');
    expect(await login.isVisible()).toBe(true);
    expect(await login.textContent()).toContain(DEMO_RUT);
    expect(await overflows(page)).toBe(false);
    await page.fill('#rut', DEMO_RUT);
    await page.fill('#password', DEMO_BANK_PASSWORD);
    await page.click('#login');

    const authorize = page.locator('.test-values[data-step="operation-authorize"]');
    expect(await authorize.isVisible()).toBe(true);
    for (const answers of Object.values(DEMO_COORDINATES)) expect(await authorize.textContent()).toContain(answers.join(' '));
    expect(await overflows(page)).toBe(false);
    const box = async (selector: string) => (await page.locator(selector).boundingBox())!;
    const [a1, b2, c3, button] = [await box('#c1'), await box('#c2'), await box('#c3'), await box('#authorize')];
    expect(b2.x).toBe(a1.x);
    expect(c3.x).toBe(a1.x);
    expect(b2.y).toBeGreaterThan(a1.y + a1.height);
    expect(c3.y).toBeGreaterThan(b2.y + b2.height);
    expect(button.y).toBeGreaterThanOrEqual(c3.y + c3.height);

    for (const [i, answer] of DEMO_COORDINATES.pay.entries()) await page.fill(`#c${i + 1}`, answer);
    await page.click('#authorize');
    expect(await page.getAttribute('.result', 'data-result')).toBe('OK');
  });

  it("draws a bank's tile from the letters of its name, leaving out an aside in brackets", async () => {
    await page.goto(`${setup.server.baseUrl}/assets/banks/dfFbF.svg`);
    expect(await page.textContent('svg text')).toBe('C');
    expect(await page.textContent('svg title')).toBe('Banco de Chile (Edwards Citi)');
  });
});
