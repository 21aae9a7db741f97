// A headless Debian chromium driven by playwright-core, as a payer would use the pages.
import { type Browser, chromium } from 'playwright-core';
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
