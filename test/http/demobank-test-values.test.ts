// DemoBank's pages show its test values beside their forms, from the scenario table, each with
// what it does: the payer's sign-in and coordinates, the mandate signing steps, the portal's
// sign-in. A production account's bank pages never do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BANK_PASSWORD } from '../../src/bank/demo-bank.js';
import { DEMO_COORDINATES, DEMO_RUT, INSUFFICIENT_FUNDS_RUT, PENDING_APPROVAL_RUT } from '../../src/bank/demo-bank-scenarios.js';
import { client } from '../helpers/http.js';
import { mandateTabAtCoordinates, startDemoBankSigning } from '../helpers/mandate-session.js';
import { loginToDemoBank, PayerSession, startBankAttempt, startDemoBankAttempt } from '../helpers/payer-session.js';
import { ANY_PAYER, ScriptedBank } from '../helpers/scripted-bank.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createSubscriptionOver } from '../helpers/subscriptions.js';

let server: TestServer;
let developer: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  developer = await server.account();
});
afterAll(async () => server?.close());

/** The test values a page shows, in order: each value with what it does, as written. */
function testValues(html: string): [value: string, effect: string][] {
  const aside = /<aside class="test-values"[^>]*>([\s\S]*?)<\/aside>/.exec(html);
  if (!aside) return [];
  return [...aside[1]!.matchAll(/<dt><code>([^<]*)<\/code><\/dt><dd>([^<]*)<\/dd>/g)].map(([, value, effect]) => [value!, effect!]);
}

const valuesOf = (html: string) => testValues(html).map(([value]) => value);

async function newPayment(account: TestAccount): Promise<string> {
  const created = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 2000, currency: 'CLP', subject: 'Test values' });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

describe("DemoBank's test values", () => {
  it("on the payer's sign-in and coordinates, in Spanish and English", async () => {
    const session = new PayerSession(server.baseUrl);
    const bankPath = await startDemoBankAttempt(session, await newPayment(developer));
    const login = testValues((await session.get(bankPath)).html);
    expect(login.map(([value]) => value)).toEqual([DEMO_RUT, DEMO_BANK_PASSWORD]);
    expect(login[0]![1]).toContain('cualquier RUT válido');

    const authorizePath = await loginToDemoBank(session, bankPath);
    const coordinates = testValues((await session.get(`${authorizePath}?lang=en`)).html);
    expect(coordinates).toEqual([
      [DEMO_COORDINATES.pay.join(' '), 'The transfer is made: the payment is paid and the merchant is notified.'],
      [DEMO_COORDINATES.fail.join(' '), 'The bank refuses the transfer: the payment stays pending and can be tried again.'],
      [DEMO_COORDINATES.uncertain.join(' '), expect.stringContaining('uncertain')],
    ]);
  });

  it('on the mandate signing steps: the RUTs of each outcome, then the coordinates', async () => {
    const subscriptionId = await createSubscriptionOver(client(server.baseUrl, developer.api_key));
    const redirectUrl = `${server.baseUrl}/pac-manager/${subscriptionId}`;
    const session = new PayerSession(server.baseUrl);
    expect(valuesOf((await session.get(await startDemoBankSigning(session, redirectUrl))).html)).toEqual([
      DEMO_RUT,
      PENDING_APPROVAL_RUT,
      INSUFFICIENT_FUNDS_RUT,
      DEMO_BANK_PASSWORD,
    ]);
    const tab = await mandateTabAtCoordinates(server.baseUrl, redirectUrl);
    expect(valuesOf(tab.page.html)).toEqual([DEMO_COORDINATES.pay.join(' '), DEMO_COORDINATES.fail.join(' ')]);
  });

  it("on the portal's sign-in", async () => {
    const portal = await new PayerSession(server.baseUrl).get('/demobank/portal');
    expect(valuesOf(portal.html)).toEqual([DEMO_RUT, DEMO_BANK_PASSWORD]);
  });

  it("never on a production account's bank pages", async () => {
    const production = await server.account({ developer: false });
    const bank = new ScriptedBank(server.ctx.banks, 'WbPkK');
    bank.signIn = ANY_PAYER;
    try {
      const session = new PayerSession(server.baseUrl);
      const bankPath = await startBankAttempt(session, await newPayment(production), 'WbPkK');
      const login = await session.get(bankPath);
      expect(login.status).toBe(200);
      const authorize = await session.get(await loginToDemoBank(session, bankPath));
      expect(authorize.status).toBe(200);
      for (const page of [login, authorize]) {
        expect(page.html).not.toContain('test-values');
        expect(page.html).not.toContain(DEMO_COORDINATES.pay.join(' '));
      }
    } finally {
      bank.unregister();
    }
  });
});
