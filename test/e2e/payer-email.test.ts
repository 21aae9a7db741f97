// The payer's email on the simplified transfer page, in a real chromium with JavaScript on and off:
// the page says beside the field that it is needed before going on to the bank, and Continue
// without it (or with one that is not an email) answers the page again saying so, in its language,
// the bank still chosen and the field focused, instead of doing nothing.
import type { Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Lang, messages } from '../../src/render/words.js';
import { useBrowser } from '../helpers/browser.js';
import { client } from '../helpers/http.js';
import { axeViolations } from '../helpers/page-checks.js';
import { useTestServer } from '../helpers/server.js';

const chromium = useBrowser();
const setup = useTestServer();

async function simplifiedPage(page: Page, lang: Lang): Promise<string> {
  const created = await client(setup.server.baseUrl, setup.account.api_key).post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order 9' });
  expect(created.status).toBe(200);
  const path = `/payment/simplified/${created.body.payment_id}`;
  await page.goto(`${setup.server.baseUrl}${path}?lang=${lang}`);
  return path;
}

describe.each([
  ['on', true],
  ['off', false],
] as const)('the email of the simplified transfer, with JavaScript %s', (_, javaScriptEnabled) => {
  let page: Page;
  beforeEach(async () => {
    page = await (await chromium.browser.newContext({ javaScriptEnabled, viewport: { width: 390, height: 800 } })).newPage();
  });
  afterEach(async () => {
    await page.context().close();
  });

  it.each(['es', 'en'] as const)('is asked for beside its field, and Continue without it says so (%s)', async (lang) => {
    const m = messages(lang);
    const path = await simplifiedPage(page, lang);
    const hint = page.locator('#payer_email-hint');
    expect(await hint.textContent()).toBe(m.emailHint);
    expect(await hint.isVisible()).toBe(true);
    expect(await page.getAttribute('#payer_email', 'aria-describedby')).toBe('payer_email-hint');
    // Between the field's label and the field itself.
    const [label, hinted, field] = await Promise.all(['label[for=payer_email]', '#payer_email-hint', '#payer_email'].map((s) => page.locator(s).boundingBox()));
    expect(label!.y + label!.height).toBeLessThanOrEqual(hinted!.y);
    expect(hinted!.y + hinted!.height).toBeLessThanOrEqual(field!.y);

    await page.check('input[value=Bawdf]');
    await page.click('#continue');
    const alert = page.locator('.error[role=alert]');
    expect(await alert.textContent()).toBe(m.emailMissing);
    expect(await alert.isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).toBe(path);
    expect(await page.isChecked('input[value=Bawdf]')).toBe(true);
    expect(await page.locator('#payer_email:focus').count()).toBe(1);
    // axe finishes its checks on the page's timers, which run only with JavaScript on.
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);

    await page.fill('#payer_email', 'not an email');
    await page.click('#continue');
    expect(await page.locator('.error[role=alert]').textContent()).toBe(m.emailError);

    await page.fill('#payer_email', 'payer@example.com');
    await page.click('#continue');
    expect(await page.locator('#rut').isVisible()).toBe(true);
  });
});
