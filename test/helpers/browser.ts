// A headless Debian chromium driven by playwright-core, as a payer would use the pages.
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // This machine's network is closed: background fetches by chromium only produce refused connections.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A chromium launched before the file's tests and closed after them: `.browser` once they run. */
export function useBrowser(): { readonly browser: Browser } {
  const held: { browser: Browser } = { browser: undefined as unknown as Browser };
  beforeAll(async () => {
    held.browser = await launchBrowser();
  });
  afterAll(async () => {
    await held.browser?.close();
  });
  return held;
}

/** From the payment page through DemoBank, up to the answer of the coordinates. */
export async function payWithDemoBank(page: Page, paymentUrl: string, coordinates: [string, string, string], rut = '11.111.111-1'): Promise<void> {
  await page.goto(paymentUrl);
  await page.click('#method-simplified');
  await page.check('input[value=Bawdf]');
  await page.fill('#payer_email', 'payer@example.com');
  await page.click('#continue');
  await page.fill('#rut', rut);
  await page.fill('#password', '1234');
  await page.click('#login');
  await page.fill('#c1', coordinates[0]);
  await page.fill('#c2', coordinates[1]);
  await page.fill('#c3', coordinates[2]);
  await page.click('#authorize');
}
