// The payer's consent review in a real chromium, at a desktop and a phone width: choose the
// institution, sign in at DemoBank through the flow's form, see the client the payer consented to
// and withdraw it. Each page has no horizontal overflow and no serious or critical axe violation.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { authorizeParams, basicAuth, formPost, PageClient, redirectParams, registerRedirectUris } from '../helpers/oauth.js';
import { axeViolations, overflows } from '../helpers/page-checks.js';
import { useTestServer } from '../helpers/server.js';

const CALLBACK = 'https://client.example/callback';
// A long name without spaces: the page must still fit a phone.
const CLIENT_NAME = 'Tienda-de-prueba-con-un-nombre-muy-largo-y-sin-espacios';

let browser: Browser;
const setup = useTestServer({}, { name: CLIENT_NAME });

beforeAll(async () => {
  browser = await launchBrowser();
  await registerRedirectUris(setup.server, setup.account, [CALLBACK]);
});
afterAll(async () => browser?.close());

/** A consent of 11.111.111-1 to the account, with its token issued (a consent is listed while a token of it lives). */
async function consent(): Promise<void> {
  const done = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(setup.account, CALLBACK));
  const code = redirectParams(done.location).code!;
  const res = await formPost(
    setup.server.baseUrl,
    '/oauth2/token',
    { grant_type: 'authorization_code', code, redirect_uri: CALLBACK },
    basicAuth(setup.account),
  );
  expect(res.status).toBe(200);
}

async function checked(page: Page, what: string): Promise<string[]> {
  const problems = (await axeViolations(page)).map((v) => `${what}: ${v}`);
  if (await overflows(page)) problems.push(`${what}: overflows horizontally`);
  return problems;
}

describe('consent review in a browser', () => {
  for (const width of [1280, 390]) {
    it(`lists the consent and withdraws it at ${width} px`, async () => {
      await consent();
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      try {
        const problems: string[] = [];
        await page.goto(`${setup.server.baseUrl}/oauth2/consents`);
        problems.push(...(await checked(page, 'institution choice')));
        await page.selectOption('#institution', 'Bawdf');
        await page.click('#choose');
        await page.waitForSelector('#rut');
        problems.push(...(await checked(page, 'sign-in')));
        await page.fill('#rut', '11.111.111-1');
        await page.fill('#password', '1234');
        await page.click('#login');
        await page.waitForSelector('section.consent');
        expect(await page.textContent('section.consent h2')).toBe(CLIENT_NAME);
        problems.push(...(await checked(page, 'consent list')));
        await page.click('section.consent button');
        await page.waitForSelector('#message');
        expect(await page.locator('section.consent').count()).toBe(0);
        problems.push(...(await checked(page, 'empty list')));
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
