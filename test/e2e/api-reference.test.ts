// The API reference at /docs as a reader sees it, in a real chromium: its top bar shows Quipu's mark
// and no box to explore another document by URL, and the reference itself is drawn below it.
import { describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';

const chromium = useBrowser();
const setup = useTestServer();

describe('/docs', () => {
  it('has a top bar with the mark and nothing of the Explore box', async () => {
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${setup.server.baseUrl}/docs`);
    await page.locator('.opblock-summary-path', { hasText: '/v3/payments' }).first().waitFor();
    // Swagger UI puts the mark there once it has drawn the bar.
    await page.locator('.topbar a img').waitFor();
    expect(await page.locator('.topbar a img').isVisible()).toBe(true);
    for (const part of ['.download-url-wrapper', '#download-url-input', '.download-url-button', '.topbar input', '.topbar button:has-text("Explore")'])
      expect(await page.locator(part).isVisible(), part).toBe(false);
    expect(await page.locator('.topbar').innerText()).not.toContain('Explore');
    await page.close();
  });
});
