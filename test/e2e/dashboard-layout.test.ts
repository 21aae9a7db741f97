// The dashboard as a merchant reads it, in a real chromium at 1280 and 390 px: every page passes
// axe-core with no serious or critical violation and has no horizontal overflow; statuses are words
// in coloured pills with the API's value in a tooltip; dates are short; ids are monospace on one
// line with a copy button; tables stack under 600 px; JSON bodies are indented and exact; a page
// offers only what the state allows, destructive actions red and confirmed on a page of their own;
// one language a page, a refusal or a bad filter said in it (the filter's on its field, the list
// still shown); a link to /docs; the filtered list as a CSV file that reads back as the API lists.
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payWithDemoBank } from '../../src/app/pay-with-demobank.js';
import { runScenario } from '../../src/app/run-scenario.js';
import { SCENARIO_TEXTS_ES, SCENARIOS } from '../../src/bank/demo-bank-scenarios.js';
import { dayOf } from '../../src/domain/payment-totals.js';
import { formatMoney } from '../../src/render/format.js';
import { messages } from '../../src/render/words.js';
import { launchBrowser } from '../helpers/browser.js';
import { seedDashboard, type SeededDashboard } from '../helpers/dashboard-seed.js';
import { client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { issueOperation } from '../helpers/operations.js';
import { axeViolations, overflows } from '../helpers/page-checks.js';
import { useTestServer } from '../helpers/server.js';

const WIDTHS = [1280, 390] as const;

let browser: Browser;
let seeded: SeededDashboard;
let operationId: string;

const setup = useTestServer();
beforeAll(async () => {
  browser = await launchBrowser();
  seeded = await seedDashboard(setup.server);
  operationId = (await issueOperation(setup.server.baseUrl, seeded.account.api_key)).id;
});
afterAll(async () => {
  await browser?.close();
});

const api = () => client(setup.server.baseUrl, seeded.account.api_key);
const newPayment = async (fields: Record<string, unknown> = {}) =>
  (await api().post('/v3/payments', { amount: 2000, currency: 'CLP', subject: 'Blue mug', ...fields })).body.payment_id as string;

/** A computed style of the first element the selector finds (of its ::before with `pseudo`). */
const style = (page: Page, selector: string, property: string, pseudo?: string): Promise<string> =>
  page
    .locator(selector)
    .first()
    .evaluate((element, [name, at]) => (globalThis as unknown as Browserish).getComputedStyle(element, at).getPropertyValue(name!), [
      property,
      pseudo ?? null,
    ] as const);

/** What the browser's window offers that these tests read (the project's TypeScript has no DOM types). */
interface Browserish {
  getComputedStyle(element: unknown, pseudo: string | null): { getPropertyValue(name: string): string };
}

describe.each(WIDTHS)('the dashboard at %i px', (width) => {
  let context: BrowserContext;
  let page: Page;
  const go = async (path: string) => {
    await page.goto(`${setup.server.baseUrl}${path}`);
    return page;
  };

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: setup.server.baseUrl });
    page = await context.newPage();
    await go('/dashboard/sign-in?lang=es');
    expect(await axeViolations(page)).toEqual([]);
    expect(await overflows(page)).toBe(false);
    await page.fill('#email', seeded.user.email);
    await page.fill('#password', seeded.user.password);
    await page.click('#sign-in');
    expect(new URL(page.url()).pathname).toBe('/dashboard');
  });
  afterAll(async () => {
    await context?.close();
  });

  it('has no serious or critical axe violation and no horizontal overflow on any page', async () => {
    const pages = [
      '/dashboard',
      '/dashboard/payments',
      '/dashboard/payments?from=yesterday',
      `/dashboard/payments/${seeded.paid}`,
      `/dashboard/payments/${seeded.pending}`,
      `/dashboard/payments/${seeded.pending}/delete`,
      `/dashboard/payments/${seeded.paid}/refund?amount=1000`,
      '/dashboard/events',
      `/dashboard/events/${seeded.notification}`,
      `/dashboard/events/${seeded.email}`,
      '/dashboard/subscriptions',
      `/dashboard/subscriptions/${seeded.subscription}`,
      `/dashboard/subscriptions/${seeded.subscription}/revoke`,
      '/dashboard/operations',
      `/dashboard/operations/${operationId}`,
      '/dashboard/settings',
      '/dashboard/sessions',
      '/dashboard/audit',
      '/dashboard/requests',
      '/dashboard/developer',
      `/dashboard/developer/emails/${seeded.email}`,
      '/dashboard?lang=en',
      '/dashboard/developer',
      '/dashboard?lang=es',
    ];
    const found: Record<string, string[]> = {};
    for (const path of pages) {
      await go(path);
      const violations = await axeViolations(page);
      if (violations.length > 0) found[path] = violations;
      if (await overflows(page)) found[path] = [...(found[path] ?? []), 'horizontal overflow'];
    }
    // The account menu, opened.
    await go('/dashboard');
    await page.click('details.account summary');
    expect(await page.isVisible('#sign-out')).toBe(true);
    const menu = await axeViolations(page);
    if (menu.length > 0 || (await overflows(page))) found['account menu'] = [...menu, ...((await overflows(page)) ? ['horizontal overflow'] : [])];
    expect(found).toEqual({});
  });

  it('shows statuses as words in coloured pills, the API value in the tooltip, and dates short', async () => {
    await go(`/dashboard/payments?q=${encodeURIComponent('e')}`);
    const pill = (id: string) => page.locator(`tr[data-payment-id="${id}"] .pill`);
    const expected: [string, string, string][] = [
      [seeded.paid, 'Pagado', 'status: done · status_detail: normal'],
      [seeded.pending, 'Pendiente', 'status: pending · status_detail: pending'],
      [seeded.partlyRefunded, 'Reembolsado en parte', 'status: done · status_detail: normal'],
      [seeded.refunded, 'Reembolsado', 'status: done · status_detail: reversed'],
    ];
    for (const [id, word, api] of expected) {
      await go(`/dashboard/payments?q=${id}`);
      expect(await pill(id).textContent()).toBe(word);
      expect(await pill(id).getAttribute('title')).toBe(api);
      expect((await pill(id).boundingBox())!.height).toBeLessThan(30);
    }
    await go(`/dashboard/payments?q=${seeded.paid}`);
    expect(await style(page, `tr[data-payment-id="${seeded.paid}"] .pill`, 'background-color')).toBe('rgb(220, 252, 231)');
    const created = page.locator(`tr[data-payment-id="${seeded.paid}"] time`);
    expect(await created.textContent()).toMatch(/^\d{1,2} [a-z]{3,4}\.? · \d\d:\d\d$/);
    expect(await created.getAttribute('title')).toMatch(/ de 20\d\d/);
    await go(`/dashboard/payments/${seeded.pending}`);
    expect(await page.textContent('#status')).toBe('Pendiente');
  });

  it('shows ids in monospace on one line, and copies one with its button', async () => {
    await go(`/dashboard/events/${seeded.notification}`);
    expect(await style(page, 'code.id', 'font-family')).toContain('monospace');
    expect(await style(page, 'code.id', 'white-space')).toBe('nowrap');
    expect(await style(page, 'code.id', 'user-select')).toBe('all');
    await go(`/dashboard/subscriptions/${seeded.subscription}`);
    const id = page.locator('code.id').first();
    expect(await id.textContent()).toBe(seeded.subscription);
    const box = (await id.boundingBox())!;
    expect(box.height).toBeLessThan(30);
    await page.locator('button.copy').first().click();
    await expect.poll(() => page.textContent('.copied')).toBe('Copiado');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(seeded.subscription);
  });

  it('lays tables out as columns, or as stacked rows under 600 px', async () => {
    await go('/dashboard/payments');
    const header = (await page.locator('table.payments thead').boundingBox())!;
    const cell = `tr[data-payment-id="${seeded.paid}"] td:nth-child(4)`;
    if (width < 600) {
      expect(header.height).toBeLessThanOrEqual(1);
      expect(await style(page, cell, 'content', '::before')).toBe('"Estado"');
      expect(await style(page, cell, 'display')).toBe('flex');
    } else {
      expect(header.height).toBeGreaterThan(20);
      expect(await style(page, cell, 'display')).toBe('table-cell');
    }
    // The developer page's scenario table: its Run buttons and ids on one line each.
    await go('/dashboard/developer');
    for (const scenario of ['transfer-pays', 'charge-insufficient-funds']) {
      const button = (await page.locator(`#run-${scenario}`).boundingBox())!;
      expect(button.height).toBeLessThan(45);
      expect(button.width).toBeGreaterThan(40);
      const code = (await page.locator('table.scenarios code', { hasText: scenario }).boundingBox())!;
      expect(code.height).toBeLessThan(25);
    }
  });

  // How the navigation is laid out at each width: dashboard-navigation.test.ts.
  it('links to the API docs from the navigation', async () => {
    await go('/dashboard/payments');
    expect(await page.getAttribute('header nav a.docs', 'href')).toBe('/docs');
    await page.click('header nav a.docs');
    expect(new URL(page.url()).pathname).toMatch(/^\/docs/);
  });

  it('indents a JSON body and shows every value exactly as it was sent', async () => {
    await go(`/dashboard/events/${seeded.notification}`);
    const shown = (await page.textContent('pre.body.json'))!;
    const sent = (await setup.server.ctx.db.selectFrom('messages').select('body').where('message_id', '=', seeded.notification).executeTakeFirstOrThrow()).body;
    expect(shown).toContain('\n  "payment_id": ');
    expect(shown.replace(/\s+/g, '')).toBe(sent.replace(/\s+/g, ''));
    expect(shown).toContain('"amount": "48000.0000"');
  });

  it('shows the API requests newest first, ignored fields at a glance, errors filtered, and an error answer indented', async () => {
    const typo = await api().post('/v3/payments', { amount: 2000, currency: 'CLP', subject: 'Blue mug', notifyurl: 'https://teapots.example/hook' });
    const refused = await api().post('/v3/payments', { amount: -1, currency: 'CLP', subject: 'Blue mug' });
    // Written a moment after they were answered (app/request-log.ts), where the server keeps them.
    const logged = await eventually(
      () => setup.server.ctx.requestRecords.kept!.ofAccount(seeded.account.receiver_id, { limit: 50 }),
      (rows) => [typo, refused].every((res) => rows.some((row) => row.request_id === res.headers.get('x-request-id'))),
    );
    const idOf = (res: typeof typo) => logged.find((row) => row.request_id === res.headers.get('x-request-id'))!.request_log_id;
    const found: Record<string, string[]> = {};
    for (const path of [
      '/dashboard/requests',
      '/dashboard/requests?show=errors',
      `/dashboard/requests/${idOf(typo)}`,
      `/dashboard/requests/${idOf(refused)}`,
    ]) {
      await go(path);
      const violations = await axeViolations(page);
      if (violations.length > 0) found[path] = violations;
      if (await overflows(page)) found[path] = [...(found[path] ?? []), 'horizontal overflow'];
    }
    expect(found).toEqual({});

    await go('/dashboard/developer');
    await page.click('#requests-link a');
    expect(await page.getAttribute('header nav a[aria-current="page"]', 'href')).toBe('/dashboard/requests');
    const rows = page.locator('table.requests tbody tr');
    expect(await rows.first().getAttribute('data-request-log-id')).toBe(String(idOf(refused)));
    const warning = page.locator(`tr[data-request-log-id="${idOf(typo)}"] .pill-wait`);
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toBe('campos ignorados: notifyurl');
    expect(await page.locator(`tr[data-request-log-id="${idOf(refused)}"] .pill-bad`).textContent()).toBe('400');

    await page.selectOption('#show', 'errors');
    await page.click('form.filters button');
    const shown = await page.locator('table.requests tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-request-log-id')));
    expect(shown).toContain(String(idOf(refused)));
    expect(shown).not.toContain(String(idOf(typo)));

    await page.click(`tr[data-request-log-id="${idOf(refused)}"] td.path a`);
    const body = (await page.textContent('pre.body.json'))!;
    expect(body).toContain('\n  "status": 400');
    expect(JSON.parse(body)).toEqual(refused.body);
  });

  it('offers only what the state allows: destructive actions red, and done only after a confirmation page', async () => {
    const pending = await newPayment();
    await go(`/dashboard/payments/${pending}`);
    expect(await page.locator('#refund').count()).toBe(0);
    expect(await style(page, '#delete', 'background-color')).toBe('rgb(185, 28, 28)');
    await page.click('#delete');
    expect(await page.textContent('h1')).toBe('¿Eliminar este pago?');
    await page.click('#cancel');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/payments/${pending}`);
    expect((await api().get(`/v3/payments/${pending}`)).status).toBe(200);
    await page.click('#delete');
    await page.click('#confirm');
    expect(new URL(page.url()).pathname).toBe('/dashboard/payments');
    expect((await api().get(`/v3/payments/${pending}`)).status).toBe(404);

    await go(`/dashboard/payments/${seeded.paid}`);
    expect(await page.locator('#delete').count()).toBe(0);
    expect(await style(page, '#refund', 'background-color')).toBe('rgb(185, 28, 28)');

    // An ENABLED subscription: DemoBank may only revoke its mandate (confirmed), not approve or reject it.
    const { subscriptionId } = (await runScenario(setup.server.ctx, seeded.account.merchant, 'mandate-enabled')).subscription!;
    await go(`/dashboard/subscriptions/${subscriptionId}`);
    expect(await page.locator('#approve, #reject').count()).toBe(0);
    expect(await style(page, '#revoke', 'background-color')).toBe('rgb(185, 28, 28)');
    await page.click('#revoke');
    expect(await page.textContent('h1')).toBe('¿Revocar este mandato en DemoBank?');
    await page.click('#confirm');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/subscriptions/${subscriptionId}`);
    expect(await page.textContent('#notice')).toBe('DemoBank aplicó la decisión.');
    expect(await page.textContent('#status')).toBe('Inactiva');
    expect(await page.locator('#revoke').count()).toBe(0);

    // A SIGNED one, waiting for DemoBank: approve, and the two that end it, red.
    const signed = (await runScenario(setup.server.ctx, seeded.account.merchant, 'mandate-pending-approval')).subscription!;
    await go(`/dashboard/subscriptions/${signed.subscriptionId}`);
    expect(await page.textContent('#status')).toBe('Firmada');
    expect(await style(page, '#approve', 'background-color')).not.toBe('rgb(185, 28, 28)');
    for (const decision of ['#reject', '#revoke']) expect(await style(page, decision, 'background-color')).toBe('rgb(185, 28, 28)');
  });

  it('says a refusal in the page’s language, back on the page and not on the POST’s address', async () => {
    const paid = await newPayment({ amount: 3000 });
    await payWithDemoBank(setup.server.ctx, paid, 'pay');
    await go(`/dashboard/payments/${paid}`);
    await page.fill('#refund-amount', '1000');
    await page.click('#refund');
    // Refunded in full elsewhere while the confirmation page is open: the refund is refused.
    await api().post(`/v3/payments/${paid}/refunds`, {});
    await page.click('#confirm');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/payments/${paid}`);
    expect(await page.textContent('#notice')).toBe('No se hizo nada: El estado actual no lo permite. La página muestra lo que sí se puede hacer.');
    expect(await page.textContent('#status')).toBe('Reembolsado');
  });

  it('speaks one language a page: the scenarios, the email page, and a bad filter marked on its field with the list still shown', async () => {
    await go('/dashboard/developer?lang=en');
    const english = (await page.textContent('table.scenarios'))!;
    expect(english).toContain(SCENARIOS[0]!.outcome);
    expect(english).not.toContain(SCENARIO_TEXTS_ES['transfer-pays']!.outcome);
    await go('/dashboard/developer?lang=es');
    const spanish = (await page.textContent('table.scenarios'))!;
    // Their commands are shown as code, without Markdown's backticks.
    for (const scenario of SCENARIOS) expect(spanish).toContain(SCENARIO_TEXTS_ES[scenario.id]!.trigger.replaceAll('`', ''));
    expect(spanish).not.toContain(SCENARIOS[0]!.outcome);
    await go(`/dashboard/developer/emails/${seeded.email}`);
    expect(await page.locator('dt').allTextContents()).toEqual(['De', 'Para', 'Pago', 'Estado']);

    await go('/dashboard/payments?from=ayer');
    expect(await page.getAttribute('#from', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#from-error')).toBe('Escribe una fecha como 2026-11-26.');
    expect(await page.locator('table.payments tbody tr').count()).toBeGreaterThanOrEqual(4);
    expect(await page.textContent('main')).not.toContain('must be');
  });

  it('exports the filtered list as a CSV file whose amounts read back as the API lists them', async () => {
    const subject = `Export ${width}`;
    const ids = [await newPayment({ subject, amount: 1234 }), await newPayment({ subject, amount: 98765 })];
    await payWithDemoBank(setup.server.ctx, ids[0]!, 'pay');
    await api().post(`/v3/payments/${ids[0]}/refunds`, { amount: 234 });
    await go(`/dashboard/payments?q=${encodeURIComponent(subject)}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    const rows = parse(fs.readFileSync((await download.path())!, 'utf8'), { columns: true }) as Record<string, string>[];
    const listed = (await api().get(`/quipu/v1/payments?q=${encodeURIComponent(subject)}`)).body.items as Record<string, unknown>[];
    expect(rows.map((r) => r.payment_id)).toEqual(listed.map((p) => p.payment_id));
    expect(rows.map((r) => r.payment_id).sort()).toEqual([...ids].sort());
    for (const row of rows) {
      const api = listed.find((p) => p.payment_id === row.payment_id)!;
      expect(row.amount).toBe(String(api.amount));
      expect(row.status).toBe(api.status);
      expect(row.status_detail).toBe(api.status_detail);
      expect(row.subject).toBe(subject);
    }
    expect(rows.find((r) => r.payment_id === ids[0])!.refunded).toBe('234');
  });

  it('counts on the home only what was paid and kept: a payment refunded in full is not paid', async () => {
    const rows = await setup.server.ctx.db
      .selectFrom('payments')
      .select(['payment_id', 'status', 'status_detail', 'amount', 'refunded', 'created_at'])
      .where('receiver_id', '=', seeded.account.receiver_id)
      .where('deleted_at', 'is', null)
      .execute();
    expect(rows.some((p) => p.payment_id === seeded.refunded && p.status_detail === 'reversed')).toBe(true);
    // Today is Santiago's: payments seeded before its midnight are yesterday's by now.
    const today = dayOf(setup.server.ctx.clocks.of(seeded.account.receiver_id).now().getTime());
    const payments = rows.filter((p) => dayOf(Number(p.created_at)) === today);
    const paid = payments.filter((p) => p.status === 'done' && p.status_detail !== 'reversed');
    await go('/dashboard');
    const card = page.locator('.card', { hasText: 'Hoy' });
    expect(Number(await card.locator('.created').textContent())).toBe(payments.length);
    expect(Number(await card.locator('.paid').textContent())).toBe(paid.length);
    const kept = paid.reduce((sum, p) => sum + Number(p.amount) - Number(p.refunded), 0);
    expect(await card.locator('.amount-paid').textContent()).toBe(formatMoney(kept, 'CLP', messages('es')));
  });
});
