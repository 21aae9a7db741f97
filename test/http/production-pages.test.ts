// A production account's payers never see DemoBank nor its account: not on the payment pages, not
// in the emails, not on the mandate page, whether the installation is a sandbox without a
// collection account of its own (the manual transfer is then not available) or has its own. A
// production installation (SANDBOX=false) offers DemoBank to no one it cannot tell is a
// developer-mode account: not on the consent review, which has no account (it says when no
// institution is configured), not to a production client's authorization flow. A developer-mode
// account keeps its test bank on every installation (main/bank-connectors.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_COLLECTION_ACCOUNT } from '../../src/domain/collection-account.js';
import { s256Challenge } from '../../src/domain/oauth-pkce.js';
import { client } from '../helpers/http.js';
import { authorizeParams, csrfOf, PageClient, redirectParams, registerRedirectUris } from '../helpers/oauth.js';
import { PayerSession } from '../helpers/payer-session.js';
import { countRows } from '../helpers/payments.js';
import { COLLECTION_SETTINGS } from '../helpers/production.js';
import { ScriptedBank } from '../helpers/scripted-bank.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createSubscriptionOver } from '../helpers/subscriptions.js';

const DEMO_TRACES = ['DemoBank', 'Bawdf', DEMO_COLLECTION_ACCOUNT.number, DEMO_COLLECTION_ACCOUNT.holderRut];

function expectNoDemoBank(text: string): void {
  for (const trace of DEMO_TRACES) expect(text).not.toContain(trace);
}

interface Installation {
  server: TestServer;
  production: TestAccount;
}

async function emailedPayment(installation: Installation) {
  const api = client(installation.server.baseUrl, installation.production.api_key);
  const created = await api.post('/v3/payments', {
    amount: 5000,
    currency: 'CLP',
    subject: 'Order',
    send_email: true,
    payer_name: 'Ana',
    payer_email: 'ana@example.com',
  });
  expect(created.status).toBe(200);
  return created.body.payment_id as string;
}

/** Every page and email a payer of the production account can reach, in both languages. */
async function payerViews(installation: Installation, id: string) {
  const session = new PayerSession(installation.server.baseUrl);
  const views: { status: number; html: string }[] = [];
  for (const lang of ['es', 'en']) {
    for (const page of ['info', 'simplified', 'manual']) views.push(await session.get(`/payment/${page}/${id}?lang=${lang}`));
  }
  const api = client(installation.server.baseUrl, installation.production.api_key);
  const listed = (await api.get('/quipu/v1/emails')).body.emails as { email_id: string; payment_id: string }[];
  const email = listed.find((e) => e.payment_id === id);
  expect(email).toBeDefined();
  const { body } = await api.get(`/quipu/v1/emails/${email!.email_id}`);
  return { views, email: `${body.subject}\n${body.text}\n${body.html}` };
}

describe('a sandbox installation without a collection account of its own', () => {
  let installation: Installation;
  beforeAll(async () => {
    const server = await startTestServer();
    installation = { server, production: await server.account({ developer: false }) };
  });
  afterAll(async () => installation?.server.close());

  it("never shows a production account's payer DemoBank, and says normal transfers are not available", async () => {
    const id = await emailedPayment(installation);
    const { views, email } = await payerViews(installation, id);
    for (const view of views) expectNoDemoBank(view.html);
    expectNoDemoBank(email);
    const [, , manualEs, , , manualEn] = views;
    expect(manualEs!.status).toBe(409);
    expect(manualEs!.html).toContain('Las transferencias normales no están disponibles en este servicio.');
    expect(manualEn!.html).toContain('Normal transfers are not available on this service.');
  });

  it("never offers DemoBank on a production account's mandate page", async () => {
    const api = client(installation.server.baseUrl, installation.production.api_key);
    const subscriptionId = await createSubscriptionOver(api);
    const session = new PayerSession(installation.server.baseUrl);
    for (const lang of ['es', 'en']) expectNoDemoBank((await session.get(`/pac-manager/${subscriptionId}?lang=${lang}`)).html);
  });

  it("still shows a developer account's payer DemoBank's account", async () => {
    const developer = await installation.server.account();
    const created = await client(installation.server.baseUrl, developer.api_key).post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order' });
    const manual = await new PayerSession(installation.server.baseUrl).get(`/payment/manual/${created.body.payment_id}`);
    expect(manual.status).toBe(200);
    expect(manual.html).toContain(`<dd class="account">${DEMO_COLLECTION_ACCOUNT.number}</dd>`);
  });
});

describe('an installation with its own collection account', () => {
  let installation: Installation;
  beforeAll(async () => {
    const server = await startTestServer(COLLECTION_SETTINGS);
    installation = { server, production: await server.account({ developer: false }) };
  });
  afterAll(async () => installation?.server.close());

  it("shows a production account's payer that account and never DemoBank", async () => {
    const id = await emailedPayment(installation);
    const { views, email } = await payerViews(installation, id);
    for (const view of views) expectNoDemoBank(view.html);
    expectNoDemoBank(email);
    const manual = views[2]!;
    expect(manual.status).toBe(200);
    expect(manual.html).toContain('<dd class="bank">Banco de Chile (Edwards Citi)</dd>');
    expect(manual.html).toContain('<dd class="account">00-123-45678-09</dd>');
  });
});

describe('a production installation (SANDBOX=false)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SANDBOX: 'false' });
  });
  afterAll(async () => server?.close());

  it('offers no institution on the consent review while none but DemoBank has a connector, and says so', async () => {
    const page = await new PageClient(server.baseUrl).get('/oauth2/consents');
    expect(page.status).toBe(200);
    expectNoDemoBank(page.text);
    expect(page.text).toContain('Este servicio no tiene ningún banco configurado');
    expect(page.text).not.toContain('<form');
  });

  it('offers a real bank with a connector and never DemoBank, whose review is refused and writes nothing', async () => {
    const bank = new ScriptedBank(server.ctx.banks, 'SDdGj');
    try {
      const browser = new PageClient(server.baseUrl);
      const page = await browser.get('/oauth2/consents');
      expect(page.text).toContain('<option value="SDdGj">Banco Estado</option>');
      expectNoDemoBank(page.text);
      const before = await countRows(server.ctx.db, 'oauth_consent_reviews');
      const refused = await browser.post('/oauth2/consents', { _csrf: csrfOf(page.text), institution_id: 'Bawdf' });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('institution_id: is not an institution you can sign in at');
      expect(await countRows(server.ctx.db, 'oauth_consent_reviews')).toBe(before);
      expect((await browser.post('/oauth2/consents', { _csrf: csrfOf(page.text), institution_id: 'SDdGj' })).status).toBe(303);
    } finally {
      bank.unregister();
    }
  });

  it("refuses DemoBank as a production client's institution, and takes it from a developer-mode client's", async () => {
    const callback = 'https://client.example/callback';
    // PKCE is required here: the answer is about the institution alone.
    const pkce = { code_challenge: s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), code_challenge_method: 'S256' };
    const institutionAnswer = async (developer: boolean) => {
      const account = await server.account({ developer });
      await registerRedirectUris(server, account, [callback]);
      return new PageClient(server.baseUrl).authorize(authorizeParams(account, callback, pkce));
    };
    const refused = await institutionAnswer(false);
    expect(redirectParams(refused.location)).toMatchObject({
      error_code: 'A002',
      error_description: expect.stringContaining('institution_id is not a supported institution'),
    });
    expect((await institutionAnswer(true)).location).toMatch(/^\/oauth2\/flows\//);
  });
});
