// The payer pages over HTTP: what they show, what they protect, and that every fault (a stale or
// forged form, a wrong RUT or password, a payment in another state, a double submit) answers with
// a clear page and changes nothing.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { findAttempt } from '../../src/store/attempts.js';
import { client } from '../helpers/http.js';
import { countRows } from '../helpers/payments.js';
import { csrfOf, loginToDemoBank, PayerSession, startDemoBankAttempt, tabAtCoordinates, titleOf } from '../helpers/payer-session.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  account = await server.account({ name: 'Tienda <b>Uno</b>' });
});
afterAll(async () => server?.close());

const api = (key = account.api_key) => client(server.baseUrl, key);

async function createPayment(fields: Record<string, unknown> = {}, key = account.api_key): Promise<string> {
  const created = await api(key).post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order', ...fields });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

const statusOf = async (id: string, key = account.api_key) => {
  const { status, status_detail } = (await api(key).get(`/v3/payments/${id}`)).body;
  return `${status}/${status_detail}`;
};
const attemptIdOf = (bankPath: string) => bankPath.split('/')[3]!;
const attemptStateOf = async (bankPath: string) => (await findAttempt(server.ctx.db, attemptIdOf(bankPath)))!.state;
const creditsOf = (id: string) => server.ctx.db.selectFrom('bank_credits').select('status').where('reference', '=', id).execute();
const PAY = { c1: '11', c2: '22', c3: '33' };

describe('payment page', () => {
  it('escapes merchant values, sets a strict CSP, and speaks Spanish unless English is chosen', async () => {
    const id = await createPayment({
      subject: '<script>alert("x")</script>',
      body: '<img src=x onerror=alert(1)>',
      cancel_url: 'https://shop.example/cancel?a=1&b="2"',
    });
    const session = new PayerSession(server.baseUrl);
    const page = await session.get(`/payment/info/${id}`);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).not.toContain('<b>Uno</b>');
    expect(page.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page.html).toContain('Tienda &lt;b&gt;Uno&lt;/b&gt;');
    expect(page.html).toContain('href="https://shop.example/cancel?a=1&amp;b=&quot;2&quot;"');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' https://shop.example");
    expect(csp).not.toContain('script-src');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.html).toContain('<html lang="es">');
    expect(page.html).toContain('$5.000');

    const english = await session.get(`/payment/info/${id}?lang=en`);
    expect(english.html).toContain('<html lang="en">');
    expect(english.html).toContain('Choose how to pay');
    // The choice is remembered.
    expect((await session.get(`/payment/manual/${id}`)).html).toContain('Collection account');
  });

  it('shows everything a normal transfer needs: the bank account, its holder, the exact amount and the reference', async () => {
    const id = await createPayment({ amount: 12345 });
    const session = new PayerSession(server.baseUrl);
    const spanish = await session.get(`/payment/manual/${id}`);
    expect(spanish.status).toBe(200);
    expect(spanish.html).toContain(
      [
        '<dt>Banco</dt><dd class="bank">DemoBank</dd>',
        '<dt>Tipo de cuenta</dt><dd class="account-type">Cuenta corriente</dd>',
        '<dt>Número de cuenta</dt><dd class="account">000000000000076543210</dd>',
        '<dt>Titular</dt><dd class="holder">Quipu Recaudación DemoBank</dd>',
        '<dt>RUT del titular</dt><dd class="holder-rut">76.543.210-3</dd>',
        '<dt>Monto exacto</dt><dd class="transfer-amount">$12.345</dd>',
        `<dt>Referencia</dt><dd class="reference"><strong>${id}</strong></dd>`,
      ].join('\n'),
    );
    expect(spanish.html).not.toContain(account.merchant.collectAccounts[0]);
    const english = await session.get(`/payment/manual/${id}?lang=en`);
    expect(english.html).toContain(
      [
        '<dt>Bank</dt><dd class="bank">DemoBank</dd>',
        '<dt>Account type</dt><dd class="account-type">Checking account (cuenta corriente)</dd>',
        '<dt>Account number</dt><dd class="account">000000000000076543210</dd>',
        '<dt>Account holder</dt><dd class="holder">Quipu Recaudación DemoBank</dd>',
        '<dt>Holder&#39;s RUT</dt><dd class="holder-rut">76.543.210-3</dd>',
        '<dt>Exact amount</dt><dd class="transfer-amount">CLP\u00a012,345</dd>',
        `<dt>Reference</dt><dd class="reference"><strong>${id}</strong></dd>`,
      ].join('\n'),
    );
    expect(english.html).toContain('write the reference, exactly as shown, in the transfer comment');
  });

  it("shows the installation's own collection account, which every COLLECTION_ setting names", async () => {
    const settings = {
      COLLECTION_BANK_ID: 'dfFbF',
      COLLECTION_ACCOUNT_TYPE: 'cuenta_vista',
      COLLECTION_ACCOUNT_NUMBER: '00-123-45678-09',
      COLLECTION_HOLDER_NAME: 'Pagos Andes SpA',
      COLLECTION_HOLDER_RUT: '765432103',
    };
    expect(() => loadConfig({ COLLECTION_ACCOUNT_NUMBER: '1' })).toThrow(
      'COLLECTION_ACCOUNT_NUMBER set without COLLECTION_BANK_ID, COLLECTION_ACCOUNT_TYPE, COLLECTION_HOLDER_NAME, COLLECTION_HOLDER_RUT',
    );
    expect(() => loadConfig({ ...settings, COLLECTION_HOLDER_RUT: '76.543.210-4' })).toThrow('COLLECTION_HOLDER_RUT must be a valid RUT');
    expect(() => loadConfig({ ...settings, COLLECTION_BANK_ID: 'nope' })).toThrow('COLLECTION_BANK_ID must be a bank_id of the catalogue');
    const installation = await startTestServer(settings);
    onTestFinished(() => installation.close());
    const owner = await installation.account();
    const created = await client(installation.baseUrl, owner.api_key).post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order' });
    const page = await new PayerSession(installation.baseUrl).get(`/payment/manual/${created.body.payment_id}`);
    for (const shown of [
      '<dd class="bank">Banco de Chile (Edwards Citi)</dd>',
      '<dd class="account-type">Cuenta vista</dd>',
      '<dd class="account">00-123-45678-09</dd>',
      '<dd class="holder">Pagos Andes SpA</dd>',
      '<dd class="holder-rut">76.543.210-3</dd>',
    ]) {
      expect(page.html).toContain(shown);
    }
  });

  it('offers only the fixed bank, only banks whose minimum the amount reaches, and only the mandatory method', async () => {
    const session = new PayerSession(server.baseUrl);
    const fixed = await session.get(`/payment/simplified/${await createPayment({ bank_id: 'Bawdf' })}`);
    expect(fixed.html.match(/name="bank_id"/g)).toHaveLength(1);
    expect(fixed.html).toContain('value="Bawdf" checked');

    const small = await session.get(`/payment/simplified/${await createPayment({ amount: 500 })}`);
    expect(small.html).toMatch(/value="SDdGj" disabled>.*monto mínimo \$1\.000/);
    expect(small.html).toMatch(/value="Bawdf">/);

    const manualOnly = await createPayment({ mandatory_payment_method: 'REGULAR_TRANSFER' });
    const info = await session.get(`/payment/info/${manualOnly}`);
    expect(info.html).toContain('id="method-manual"');
    expect(info.html).not.toContain('id="method-simplified"');
    const refused = await session.get(`/payment/simplified/${manualOnly}`);
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('Este cobro no admite este medio de pago.');
    const before = await countRows(server.ctx.db, 'payment_attempts');
    const posted = await session.post(`/payment/simplified/${manualOnly}`, { _csrf: csrfOf(info), bank_id: 'Bawdf', payer_email: 'a@b.cl' });
    expect(posted.status).toBe(409);
    expect(await countRows(server.ctx.db, 'payment_attempts')).toBe(before);
  });

  it('asks again for a bank and an email that are missing or wrong, naming each', async () => {
    const id = await createPayment({ amount: 500 });
    const session = new PayerSession(server.baseUrl);
    const form = await session.get(`/payment/simplified/${id}`);
    const before = await countRows(server.ctx.db, 'payment_attempts');
    const bad = await session.post(`/payment/simplified/${id}`, { _csrf: csrfOf(form), bank_id: 'SDdGj', payer_email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Elige un banco que pueda pagar este cobro.');
    expect(bad.html).toContain('Escribe un correo electrónico válido.');
    expect(await countRows(server.ctx.db, 'payment_attempts')).toBe(before);
  });

  it('gives production accounts no test bank, and says a real bank has no connection yet', async () => {
    // A server of its own: a production account stops the developer clock the other tests move.
    const installation = await startTestServer();
    onTestFinished(() => installation.close());
    const production = await installation.account({ developer: false });
    const created = await client(installation.baseUrl, production.api_key).post('/v3/payments', { amount: 5000, currency: 'CLP', subject: 'Order' });
    const id = created.body.payment_id;
    const session = new PayerSession(installation.baseUrl);
    const form = await session.get(`/payment/simplified/${id}`);
    expect(form.html).not.toContain('value="Bawdf"');
    const demo = await session.post(`/payment/simplified/${id}`, { _csrf: csrfOf(form), bank_id: 'Bawdf', payer_email: 'a@b.cl' });
    expect(demo.status).toBe(400);
    const real = await session.post(`/payment/simplified/${id}`, { _csrf: csrfOf(form), bank_id: 'WbPkK', payer_email: 'a@b.cl' });
    expect(real.status).toBe(403);
    expect(real.html).toContain('Quipu aún no tiene conexión con Banco Santander');
    expect(real.html).toContain(`href="/payment/manual/${id}"`);
    expect((await client(installation.baseUrl, production.api_key).get(`/v3/payments/${id}`)).body).toMatchObject({
      status: 'pending',
      status_detail: 'pending',
    });
  });

  it('answers unknown and malformed addresses with a not-found page', async () => {
    const session = new PayerSession(server.baseUrl);
    expect((await session.get('/payment/info/zzzzzzzzzzzz')).status).toBe(404);
    expect(titleOf(await session.get('/payment/info/<bad>'))).toBe('Cobro no encontrado');
    expect((await session.get('/payment/bank/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await session.get(`/payment/receipt/${await createPayment()}`)).status).toBe(404);
  });
});

describe('giving up', () => {
  const CANCEL = 'https://shop.example/cancel?order=7&from="pay"';
  const LINK = 'class="cancel" href="https://shop.example/cancel?order=7&amp;from=&quot;pay&quot;"';

  /** Every page of the way to paying, from the payment page to a failed transfer. */
  async function pagesOnTheWay(fields: Record<string, unknown>) {
    const id = await createPayment(fields);
    const session = new PayerSession(server.baseUrl);
    const tab = await tabAtCoordinates(server.baseUrl, id);
    const failed = await tab.submit({ c1: '99', c2: '99', c3: '99' });
    expect(failed.status).toBe(303);
    const pages = {
      info: await session.get(`/payment/info/${id}`),
      simplified: await session.get(`/payment/simplified/${id}`),
      manual: await session.get(`/payment/manual/${id}`),
      bankLogin: await session.get(await startDemoBankAttempt(session, id)),
      coordinates: tab.page,
      failedTransfer: await tab.session.get(failed.location!),
    };
    return { id, pages };
  }

  it('offers the way back to cancel_url, escaped, on every page where the payer can still give up', async () => {
    const { id, pages } = await pagesOnTheWay({ cancel_url: CANCEL });
    expect(titleOf(pages.failedTransfer)).toBe('La transferencia no se realizó');
    for (const [name, page] of Object.entries(pages)) {
      expect(page.status, name).toBe(200);
      expect(page.html, name).toContain(`${LINK}>Volver al comercio</a>`);
    }
    const english = await new PayerSession(server.baseUrl).get(`/payment/simplified/${id}?lang=en`);
    expect(english.html).toContain(`${LINK}>Back to the merchant</a>`);
  });

  it('offers none when the payment has no cancel_url', async () => {
    const { pages } = await pagesOnTheWay({});
    for (const [name, page] of Object.entries(pages)) {
      expect(page.status, name).toBe(200);
      expect(page.html, name).not.toContain('class="cancel"');
    }
  });
});

describe('forms', () => {
  it('refuse a missing, tampered or foreign CSRF token and change nothing', async () => {
    const id = await createPayment();
    const session = new PayerSession(server.baseUrl);
    const info = await session.get(`/payment/info/${id}`);
    const token = csrfOf(info);
    const missing = await session.post(`/payment/info/${id}/decline`, {});
    expect(missing.status).toBe(403);
    expect(titleOf(missing)).toBe('Formulario no válido');
    const tampered = await session.post(`/payment/info/${id}/decline`, { _csrf: `${token.slice(0, -2)}xx` });
    expect(tampered.status).toBe(403);
    expect(tampered.html).toContain('El formulario venció o no es válido.');
    // A token taken from another browser does not match this browser's secret cookie.
    const other = new PayerSession(server.baseUrl);
    await other.get(`/payment/info/${id}`);
    const foreign = await other.post(`/payment/info/${id}/abuse`, { _csrf: token });
    expect(foreign.status).toBe(403);
    expect(titleOf(foreign)).toBe('Formulario no válido');
    expect(await statusOf(id)).toBe('pending/pending');
    // The genuine form still works.
    expect((await session.post(`/payment/info/${id}/decline`, { _csrf: token })).status).toBe(303);
    expect(await statusOf(id)).toBe('pending/rejected-by-payer');
  });

  it('refuse a forged token on the bank choice and the bank forms: no attempt, no login, no transfer', async () => {
    const id = await createPayment();
    const session = new PayerSession(server.baseUrl);
    await session.get(`/payment/simplified/${id}`);
    const before = await countRows(server.ctx.db, 'payment_attempts');
    const start = await session.post(`/payment/simplified/${id}`, { bank_id: 'Bawdf', payer_email: 'a@b.cl' });
    expect(start.status).toBe(403);
    expect(titleOf(start)).toBe('Formulario no válido');
    expect(await countRows(server.ctx.db, 'payment_attempts')).toBe(before);

    const bankPath = await startDemoBankAttempt(session, id);
    const login = await session.post(`${bankPath}/login`, { _csrf: 'forged', rut: '11.111.111-1', password: '1234' });
    expect(login.status).toBe(403);
    expect(titleOf(login)).toBe('Formulario no válido');
    expect(await attemptStateOf(bankPath)).toBe('started');

    const authorizePath = await loginToDemoBank(session, bankPath);
    const form = await session.get(authorizePath);
    const transfer = await session.post(authorizePath, { _csrf: `${csrfOf(form).slice(0, -2)}xx`, ...PAY });
    expect(transfer.status).toBe(403);
    expect(transfer.html).toContain('El formulario venció o no es válido.');
    expect(await attemptStateOf(bankPath)).toBe('authenticated');
    expect(await statusOf(id)).toBe('pending/pending');
    expect(await creditsOf(id)).toEqual([]);
  });

  it('refuse a form older than PAYER_FORM_TTL_SECONDS, the coordinates too', async () => {
    // Two seconds: the steps up to the coordinates each post their form well within that.
    const shortLived = await startTestServer({ PAYER_FORM_TTL_SECONDS: '2' });
    try {
      const owner = await shortLived.account();
      const ownerApi = client(shortLived.baseUrl, owner.api_key);
      const create = async () => (await ownerApi.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Old form' })).body.payment_id as string;
      const [declined, toPay] = [await create(), await create()];
      const session = new PayerSession(shortLived.baseUrl);
      const form = await session.get(`/payment/info/${declined}`);
      const tab = await tabAtCoordinates(shortLived.baseUrl, toPay);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const expired = await session.post(`/payment/info/${declined}/decline`, { _csrf: csrfOf(form) });
      expect(expired.status).toBe(403);
      expect(expired.html).toContain('El formulario venció o no es válido.');
      const lateTransfer = await tab.submit(PAY);
      expect(lateTransfer.status).toBe(403);
      expect(titleOf(lateTransfer)).toBe('Formulario no válido');
      expect((await findAttempt(shortLived.ctx.db, attemptIdOf(tab.path)))!.state).toBe('authenticated');
      for (const id of [declined, toPay])
        expect((await ownerApi.get(`/v3/payments/${id}`)).body).toMatchObject({ status: 'pending', status_detail: 'pending' });
    } finally {
      await shortLived.close();
    }
  });

  it('decline once on a double submit: the second answers with the payment declined, and nothing changes after', async () => {
    const id = await createPayment({ cancel_url: 'https://shop.example/cancel' });
    const session = new PayerSession(server.baseUrl);
    const info = await session.get(`/payment/info/${id}`);
    const [first, second] = await Promise.all([
      session.post(`/payment/info/${id}/decline`, { _csrf: csrfOf(info) }),
      session.post(`/payment/info/${id}/decline`, { _csrf: csrfOf(info) }),
    ]);
    expect([first.status, second.status].sort()).toEqual([303, 409]);
    expect((first.status === 303 ? first : second).location).toBe('https://shop.example/cancel');
    const refused = first.status === 409 ? first : second;
    expect(titleOf(refused)).toBe('Cobro rechazado');
    expect(await statusOf(id)).toBe('pending/rejected-by-payer');
    // The other button of the same page cannot turn the refusal into a report.
    const report = await session.post(`/payment/info/${id}/abuse`, { _csrf: csrfOf(info) });
    expect(report.status).toBe(409);
    expect(titleOf(report)).toBe('Cobro rechazado');
    expect(await statusOf(id)).toBe('pending/rejected-by-payer');
  });
});

describe('DemoBank login', () => {
  it('refuses a RUT with a wrong check digit and a wrong password, and the attempt stays where it was', async () => {
    const id = await createPayment();
    const session = new PayerSession(server.baseUrl);
    const bankPath = await startDemoBankAttempt(session, id);
    const login = await session.get(bankPath);
    expect(titleOf(login)).toBe('DemoBank: ingresa a tu banco');
    expect(login.html).toContain('Este es un banco de pruebas. Las transacciones no son reales.');
    const wrongRut = await session.post(`${bankPath}/login`, { _csrf: csrfOf(login), rut: '11.111.111-2', password: '1234' });
    expect(wrongRut.status).toBe(400);
    expect(wrongRut.html).toContain('El RUT no es válido.');
    const wrongPassword = await session.post(`${bankPath}/login`, { _csrf: csrfOf(login), rut: '11.111.111-1', password: '4321' });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.html).toContain('El RUT o la clave no son correctos.');
    expect(await attemptStateOf(bankPath)).toBe('started');
    expect(await statusOf(id)).toBe('pending/pending');
  });

  it('logs in once on a double submit: both requests land on the coordinates', async () => {
    const id = await createPayment();
    const session = new PayerSession(server.baseUrl);
    const bankPath = await startDemoBankAttempt(session, id);
    const login = await session.get(bankPath);
    const fields = { _csrf: csrfOf(login), rut: '11.111.111-1', password: '1234' };
    const replies = await Promise.all([session.post(`${bankPath}/login`, fields), session.post(`${bankPath}/login`, fields)]);
    expect(replies.map((r) => [r.status, r.location])).toEqual([
      [303, `${bankPath}/authorize`],
      [303, `${bankPath}/authorize`],
    ]);
    expect(await attemptStateOf(bankPath)).toBe('authenticated');
    expect(await statusOf(id)).toBe('pending/pending');
  });

  it('lets only the fixed payer pay, however the RUT is written', async () => {
    const id = await createPayment({ fixed_payer_personal_identifier: '44.444.444-4' });
    const session = new PayerSession(server.baseUrl);
    const bankPath = await startDemoBankAttempt(session, id);
    const login = await session.get(bankPath);
    const stranger = await session.post(`${bankPath}/login`, { _csrf: csrfOf(login), rut: '11.111.111-1', password: '1234' });
    expect(stranger.status).toBe(403);
    expect(stranger.html).toContain('Este cobro solo puede pagarlo la persona que indicó el comercio.');
    expect(await attemptStateOf(bankPath)).toBe('started');
    expect(await statusOf(id)).toBe('pending/pending');
    expect(await loginToDemoBank(session, bankPath, '444444444')).toBe(`${bankPath}/authorize`);
  });
});

describe('authorising the transfer', () => {
  it("says a transfer failed in the page's language, and shows the bank's own message as the bank's", async () => {
    const id = await createPayment();
    const tab = await tabAtCoordinates(server.baseUrl, id);
    const failed = await tab.submit({ c1: '99', c2: '99', c3: '99' });
    expect(failed.status).toBe(303);
    const spanish = await tab.session.get(failed.location!);
    expect(titleOf(spanish)).toBe('La transferencia no se realizó');
    expect(spanish.html).toContain(
      '<p class="error" role="alert">Tu banco no realizó la transferencia.</p><p class="bank-message">Mensaje de DemoBank: <q>Error ejecutando transferencia</q></p>',
    );
    const english = await tab.session.get(`${failed.location}?lang=en`);
    expect(titleOf(english)).toBe('The transfer did not happen');
    expect(english.html).toContain(
      '<p class="error" role="alert">Your bank did not make the transfer.</p><p class="bank-message">DemoBank&#39;s message, in the bank&#39;s own words: <q>Error ejecutando transferencia</q></p>',
    );
    expect(english.html).toContain('>Try again</a>');
  });

  it('asks again for malformed coordinates without reaching the bank', async () => {
    const id = await createPayment();
    const session = new PayerSession(server.baseUrl);
    const authorizePath = await loginToDemoBank(session, await startDemoBankAttempt(session, id));
    const form = await session.get(authorizePath);
    const bad = await session.post(authorizePath, { _csrf: csrfOf(form), c1: '1', c2: 'ab', c3: '33' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Escribe los dos dígitos de cada coordenada.');
    expect(await attemptStateOf(authorizePath)).toBe('authenticated');
    expect(await statusOf(id)).toBe('pending/pending');
  });

  it('pays once on a double submit: the second answers that the transfer was already sent', async () => {
    const id = await createPayment({ return_url: 'https://shop.example/thanks' });
    const session = new PayerSession(server.baseUrl);
    const authorizePath = await loginToDemoBank(session, await startDemoBankAttempt(session, id));
    const form = await session.get(authorizePath);
    expect(form.headers.get('content-security-policy')).toContain("form-action 'self' https://shop.example");
    const fields = { _csrf: csrfOf(form), c1: '11', c2: '22', c3: '33' };
    const [first, second] = await Promise.all([session.post(authorizePath, fields), session.post(authorizePath, fields)]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([303, 409]);
    const refused = first.status === 409 ? first : second;
    expect(refused.html).toContain('Esta transferencia ya fue enviada; no se envió otra vez.');
    expect((first.status === 303 ? first : second).location).toBe('https://shop.example/thanks');
    expect(await statusOf(id)).toBe('done/normal');
    const credits = await server.ctx.db.selectFrom('bank_credits').select('status').where('reference', '=', id).execute();
    expect(credits).toEqual([{ status: 'matched' }]);
    const again = await session.post(authorizePath, fields);
    expect(again.status).toBe(409);
  });

  it('refuses to start paying a payment in another state', async () => {
    const id = await createPayment();
    const session = new PayerSession(server.baseUrl);
    const form = await session.get(`/payment/simplified/${id}`);
    const info = await session.get(`/payment/info/${id}`);
    expect((await api().post(`/quipu/v1/payments/${id}/mark-paid`)).status).toBe(200);
    const before = await countRows(server.ctx.db, 'payment_attempts');
    const start = await session.post(`/payment/simplified/${id}`, { _csrf: csrfOf(form), bank_id: 'Bawdf', payer_email: 'a@b.cl' });
    expect(start.status).toBe(409);
    expect(titleOf(start)).toBe('Pago realizado');
    const decline = await session.post(`/payment/info/${id}/decline`, { _csrf: csrfOf(info) });
    expect(decline.status).toBe(409);
    expect(titleOf(decline)).toBe('Pago realizado');
    expect(await countRows(server.ctx.db, 'payment_attempts')).toBe(before);
    expect(await statusOf(id)).toBe('done/marked-paid-by-receiver');
  });

  it('refuses the bank login and the coordinates of a payment declined meanwhile in another tab', async () => {
    const id = await createPayment();
    const session = new PayerSession(server.baseUrl);
    const bankPath = await startDemoBankAttempt(session, id);
    const login = await session.get(bankPath);
    const tab = await tabAtCoordinates(server.baseUrl, id);
    const info = await session.get(`/payment/info/${id}`);
    expect((await session.post(`/payment/info/${id}/decline`, { _csrf: csrfOf(info) })).status).toBe(303);

    const lateLogin = await session.post(`${bankPath}/login`, { _csrf: csrfOf(login), rut: '11.111.111-1', password: '1234' });
    expect(lateLogin.status).toBe(409);
    expect(titleOf(lateLogin)).toBe('Cobro rechazado');
    expect(await attemptStateOf(bankPath)).toBe('started');
    const lateTransfer = await tab.submit(PAY);
    expect(lateTransfer.status).toBe(409);
    expect(titleOf(lateTransfer)).toBe('Cobro rechazado');
    expect(await attemptStateOf(tab.path)).toBe('authenticated');
    expect(await statusOf(id)).toBe('pending/rejected-by-payer');
    expect(await creditsOf(id)).toEqual([]);
  });

  it('refuses the coordinates of a payment that expired meanwhile', async () => {
    const now = new Date((await api().get('/sandbox/clock')).body.now);
    const id = await createPayment({ expires_date: new Date(now.getTime() + 3_600_000).toISOString() });
    const tab = await tabAtCoordinates(server.baseUrl, id);
    expect((await api().post('/sandbox/clock', { advance: '2h' })).status).toBe(200);
    const late = await tab.submit(PAY);
    expect(late.status).toBe(409);
    expect(titleOf(late)).toBe('Cobro vencido');
    expect(late.html).toContain('Este cobro venció y ya no se puede pagar.');
    expect(await attemptStateOf(tab.path)).toBe('authenticated');
    expect(await statusOf(id)).toBe('pending/pending');
    expect(await creditsOf(id)).toEqual([]);
  });

  it('ends an attempt after 3 hours on the developer clock; a new attempt may start', async () => {
    const id = await createPayment({ cancel_url: 'https://shop.example/cancel' });
    const session = new PayerSession(server.baseUrl);
    const bankPath = await startDemoBankAttempt(session, id);
    const login = await session.get(bankPath);
    expect((await api().post('/sandbox/clock', { advance: '3h' })).status).toBe(200);
    const late = await session.post(`${bankPath}/login`, { _csrf: csrfOf(login), rut: '11.111.111-1', password: '1234' });
    expect(late.status).toBe(409);
    expect(titleOf(late)).toBe('Intento vencido');
    expect(late.html).toContain(`id="retry" href="/payment/simplified/${id}"`);
    expect(late.html).toContain('class="cancel" href="https://shop.example/cancel"');
    expect(await attemptStateOf(bankPath)).toBe('started');
    expect(await statusOf(id)).toBe('pending/pending');
    const next = await startDemoBankAttempt(session, id);
    expect(next).not.toBe(bankPath);
    expect(await loginToDemoBank(session, next)).toBe(`${next}/authorize`);
  });
});
