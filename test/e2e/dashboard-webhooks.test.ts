// Webhook debugging in the dashboard, in a real chromium at 1280 and 390 px, with real local
// receivers: an event's page shows each attempt's exact request headers (the signature among them,
// as the receiver got it) in a monospace table with copy buttons, the body indented; "send to
// another URL" asks first, sends the same signed body once, and shows the outcome as an attempt
// marked with that URL; Settings sends a signed test event to the saved notify_url and says how it
// went. Every page passes axe-core with no serious or critical violation and has no horizontal
// overflow.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER } from '../../src/domain/notification-signature.js';
import { launchBrowser } from '../helpers/browser.js';
import { seedDashboard, type SeededDashboard } from '../helpers/dashboard-seed.js';
import { client } from '../helpers/http.js';
import { signedBy, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { axeViolations, overflows } from '../helpers/page-checks.js';
import { useTestServer } from '../helpers/server.js';

const WIDTHS = [1280, 390] as const;

let browser: Browser;
let seeded: SeededDashboard;
let hooks: Receiver;
let elsewhere: Receiver;

const setup = useTestServer();
beforeAll(async () => {
  browser = await launchBrowser();
  seeded = await seedDashboard(setup.server);
  hooks = await startReceiver();
  elsewhere = await startReceiver();
});
afterAll(async () => {
  await browser?.close();
  await hooks?.close();
  await elsewhere?.close();
});

const api = () => client(setup.server.baseUrl, seeded.account.api_key);

/** The page as it is now passes axe and fits the width. */
async function expectSound(page: Page): Promise<void> {
  expect(await axeViolations(page), page.url()).toEqual([]);
  expect(await overflows(page), page.url()).toBe(false);
}

describe.each(WIDTHS)('webhook debugging at %i px', { timeout: 120_000 }, (width) => {
  let context: BrowserContext;
  let page: Page;
  const go = (path: string) => page.goto(`${setup.server.baseUrl}${path}`);

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width, height: 900 } });
    page = await context.newPage();
    await go('/dashboard/sign-in?lang=es');
    await page.fill('#email', seeded.user.email);
    await page.fill('#password', seeded.user.password);
    await page.click('#sign-in');
  });
  afterAll(async () => {
    await context?.close();
  });

  it("shows each attempt's exact request headers and signature, with copy buttons, and the body indented", async () => {
    await go(`/dashboard/events/${seeded.notification}`);
    await expectSound(page);
    const { body } = await api().get(`/quipu/v1/events/${seeded.notification}`);
    const signature = page.locator(`details.request[data-attempt="1"] code[data-header="${SIGNATURE_HEADER}"]`);
    expect(await signature.textContent()).toBe(body.attempt_log[0].headers[SIGNATURE_HEADER]);
    expect(await page.locator('details.request[data-attempt="1"] code[data-header="content-type"]').textContent()).toBe('application/json');
    expect(await signature.evaluate((e) => (globalThis as any).getComputedStyle(e).fontFamily)).toContain('monospace');
    // A copy button beside every header's value.
    expect(await page.locator('details.request[data-attempt="1"] button.copy').count()).toBe(Object.keys(body.attempt_log[0].headers).length);
    expect(await page.locator('pre.json').textContent()).toContain('\n  "payment_id": ');
    // The ids still on one line.
    expect(
      await page
        .locator('code.id')
        .first()
        .evaluate((e) => (globalThis as any).getComputedStyle(e).whiteSpace),
    ).toBe('nowrap');
  });

  it('sends an event once to another URL, after a confirmation, and shows the outcome as an attempt marked with that URL', async () => {
    await go(`/dashboard/events/${seeded.notification}`);
    const before = elsewhere.requests.length;
    await page.fill('#send-to-url', elsewhere.url);
    await page.click('#send-to');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/events/${seeded.notification}/send-to`);
    expect(await page.textContent('h1')).toBe(`¿Enviar este evento una vez a ${elsewhere.url}?`);
    expect(await page.getAttribute('#confirm', 'class')).toBe('danger');
    await expectSound(page);
    expect(elsewhere.requests.length).toBe(before);
    await page.click('#confirm');

    expect(new URL(page.url()).pathname).toBe(`/dashboard/events/${seeded.notification}`);
    expect(await page.textContent('#notice')).toMatch(new RegExp(`^Enviado a ${elsewhere.url}: entregado \\(HTTP 200, \\d+ ms\\)\\.$`));
    await expectSound(page);
    expect(elsewhere.requests.length).toBe(before + 1);
    const received = elsewhere.requests.at(-1)!;
    expect(signedBy(seeded.account.secret, received)).toBe(true);
    const { body } = await api().get(`/quipu/v1/events/${seeded.notification}`);
    expect(received.body).toBe(body.body);
    const marked = page.locator(`tr.attempt.elsewhere[data-sent-to="${elsewhere.url}"]`).last();
    expect(await marked.textContent()).toContain(`enviado a ${elsewhere.url}`);
    const number = body.attempt_log.at(-1).number;
    expect(body.attempt_log.at(-1).sent_to).toBe(elsewhere.url);
    expect(await page.locator(`details.request[data-attempt="${number}"] code[data-header="${SIGNATURE_HEADER}"]`).textContent()).toBe(
      received.headers[SIGNATURE_HEADER],
    );
    // The event's own status is what it was: delivered to its own URL.
    expect(body.status).toBe('delivered');
  });

  it('refuses a URL that is not a web address on the field itself', async () => {
    await go(`/dashboard/events/${seeded.notification}`);
    await page.fill('#send-to-url', 'ftp://files.example');
    await page.click('#send-to');
    expect(await page.getAttribute('#send-to-url', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#send-to-error')).toContain('Escribe una dirección web completa');
    await expectSound(page);
  });

  it('sends a signed test event to the saved notify_url from Settings and shows how it went', async () => {
    await go('/dashboard/settings');
    await page.fill('#notify_url', hooks.url);
    await page.click('#save');
    await expectSound(page);
    const before = hooks.requests.length;
    await page.click('#test-event');
    expect(await page.textContent('#notice')).toMatch(new RegExp(`^Evento de prueba enviado a ${hooks.url}: entregado \\(HTTP 200, \\d+ ms\\)\\.`));
    await expectSound(page);
    expect(hooks.requests.length).toBe(before + 1);
    const received = hooks.requests.at(-1)!;
    expect(signedBy(seeded.account.secret, received)).toBe(true);
    expect(JSON.parse(received.body)).toMatchObject({ event: 'test', receiver_id: seeded.account.receiver_id });
    await page.click('#test-event-link');
    expect(await page.textContent('h1')).toBe('Evento receiver.test');
    expect(await page.locator(`code[data-header="${SIGNATURE_HEADER}"]`).last().textContent()).toBe(received.headers[SIGNATURE_HEADER]);
    await expectSound(page);
  });
});
