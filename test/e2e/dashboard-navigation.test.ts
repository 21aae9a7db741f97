// The dashboard's navigation in a real chromium, signed in as an owner of a developer-mode account
// (every section shown) whose name is long: at 1280 px it is one line in either language, all of
// it in view; at 390 px no section is cut or hidden out of view, nor anything wider than the window.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { launchBrowser } from '../helpers/browser.js';
import { overflows } from '../helpers/page-checks.js';
import { CHOSEN_PASSWORD, useTestServer } from '../helpers/server.js';

interface Box {
  text: string;
  top: number;
  left: number;
  right: number;
  /** The link's text is wider than the link shows. */
  clipped: boolean;
}

let browser: Browser;
let user: DashboardCredentials;

const setup = useTestServer({}, { name: 'Tetera y Compañía de Santiago, Sociedad Limitada' });
beforeAll(async () => {
  browser = await launchBrowser();
  user = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@teapots.example' });
});
afterAll(async () => {
  await browser?.close();
});

/** The navigation's links where the browser lays them out, and whether the bar hides any of its content. */
async function navigation(page: Page): Promise<{ links: Box[]; hidesContent: boolean }> {
  return page.evaluate(`(() => {
    const nav = document.querySelector('header nav');
    const links = [...nav.querySelectorAll('a')].map((a) => {
      const box = a.getBoundingClientRect();
      return { text: a.textContent, top: Math.round(box.top), left: box.left, right: box.right, clipped: a.scrollWidth > a.clientWidth };
    });
    return { links, hidesContent: nav.scrollWidth > nav.clientWidth || nav.scrollHeight > nav.clientHeight };
  })()`);
}

describe.each(['es', 'en'] as const)('the navigation of the dashboard in %s', (lang) => {
  const at = async (width: number): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${setup.server.baseUrl}/dashboard/sign-in?lang=${lang}`);
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await page.click('#sign-in');
    await page.goto(`${setup.server.baseUrl}/dashboard/developer`);
    return page;
  };

  it('is one line at 1280 px, every section in view', async () => {
    const page = await at(1280);
    const { links, hidesContent } = await navigation(page);
    // Every section: home, payments, events, subscriptions, operations, settings, audit, requests, developer; and the API reference.
    expect(links).toHaveLength(10);
    expect(new Set(links.map((link) => link.top)).size, JSON.stringify(links)).toBe(1);
    expect(links.every((link) => link.left >= 0 && link.right <= 1280 && !link.clipped)).toBe(true);
    expect(hidesContent).toBe(false);
    await page.close();
  });

  it('at 390 px, cuts no section and hides none out of view', async () => {
    const page = await at(390);
    const { links, hidesContent } = await navigation(page);
    expect(links).toHaveLength(10);
    expect(
      links.filter((link) => link.left < 0 || link.right > 390 || link.clipped),
      JSON.stringify(links),
    ).toEqual([]);
    expect(hidesContent).toBe(false);
    expect(await overflows(page)).toBe(false);
    await page.close();
  });
});
