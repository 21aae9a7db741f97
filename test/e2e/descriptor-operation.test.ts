// An operation descriptor as a merchant's app and a payer go through it, in a real chromium with
// JavaScript off: the merchant's server issues a descriptor; the payer opens it as the SDK would
// (the descriptor itself, URL-encoded, or the operation id), picks DemoBank when the descriptor
// names a bank Quipu does not know, signs in and authorises; the merchant reads OK from the result
// endpoint. The failure coordinates read ERROR.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COORDINATES } from '../../src/bank/demo-bank-scenarios.js';
import { launchBrowser } from '../helpers/browser.js';
import { client } from '../helpers/http.js';
import { issueOperation, NEW_DESCRIPTOR, operationPage } from '../helpers/operations.js';
import { useTestServer } from '../helpers/server.js';

let browser: Browser;
let page: Page;

const setup = useTestServer({}, { name: 'Tienda Los Andes' });
beforeAll(async () => {
  browser = await launchBrowser();
  page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
});
afterAll(async () => {
  await browser?.close();
});

async function runInBrowser(ref: string, answers: readonly string[]): Promise<void> {
  await page.goto(`${setup.server.baseUrl}${operationPage(ref)}`);
  expect(await page.textContent('dd.merchant')).toBe('Tienda Los Andes');
  expect(await page.textContent('dd.target-number')).toBe('123459876');
  expect(await page.textContent('dd.target-name')).toBe('Tienda SpA');
  expect(await page.textContent('dd.amount')).toBe('$15.000');
  if (await page.isVisible('input[name=bank]')) {
    await page.check('input[value=Bawdf]');
    await page.click('#continue');
  }
  await page.fill('#rut', '11.111.111-1');
  await page.fill('#password', '1234');
  await page.click('#login');
  await page.fill('#c1', answers[0]!);
  await page.fill('#c2', answers[1]!);
  await page.fill('#c3', answers[2]!);
  await page.click('#authorize');
  await page.waitForURL(/\/result$/);
}

describe('an operation descriptor run at DemoBank in a browser', () => {
  it('issues a descriptor, runs it by the descriptor itself, and reads OK', async () => {
    const op = await issueOperation(setup.server.baseUrl, setup.account.api_key);
    await runInBrowser(op.description, DEMO_COORDINATES.pay);
    expect(await page.getAttribute('p.result', 'data-result')).toBe('OK');
    const result = await client(setup.server.baseUrl, setup.account.api_key).get(`/quipu/v1/operations/${op.id}`);
    expect(result.body).toMatchObject({ operationId: op.id, result: 'OK' });
  }, 60_000);

  it('the payer picks DemoBank for a bank Quipu does not know; the failure coordinates read ERROR', async () => {
    const op = await issueOperation(setup.server.baseUrl, setup.account.api_key, { ...NEW_DESCRIPTOR, bank: 'dSXgfesd' });
    await runInBrowser(op.id, DEMO_COORDINATES.fail);
    expect(await page.getAttribute('p.result', 'data-result')).toBe('ERROR');
    const result = await client(setup.server.baseUrl, setup.account.api_key).get(`/quipu/v1/operations/${op.id}`);
    expect(result.body).toMatchObject({ operationId: op.id, result: 'ERROR', failureReason: 'TRANSFER_FAILED' });
  }, 60_000);
});
