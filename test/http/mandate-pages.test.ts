// The mandate signing pages over HTTP: what they show, where each scenario leaves the payer and the
// subscription, what they protect, and that every fault (a wrong RUT, wrong coordinates, a stale or
// forged form, a double submit, a session or a subscription that is over) answers with a clear
// page and changes nothing. A charge intent's payment is never payable on the payer pages.
import { describe, expect, it } from 'vitest';
import { collectDebits } from '../../src/app/collect-debits.js';
import { journaledRequests } from '../../src/bank/demo-bank-books.js';
import { DEMO_COORDINATES, PENDING_APPROVAL_RUT } from '../../src/bank/demo-bank-scenarios.js';
import { client } from '../helpers/http.js';
import { mandateTabAtCoordinates, signMandateThroughPages, startDemoBankSigning } from '../helpers/mandate-session.js';
import { countRows } from '../helpers/payments.js';
import { csrfOf, PayerSession, titleOf } from '../helpers/payer-session.js';
import { useTestServer } from '../helpers/server.js';
import { NEW_SUBSCRIPTION, newCharge } from '../helpers/subscriptions.js';

const MINUTE = 60_000;

const setup = useTestServer({}, { name: 'Tienda <b>Uno</b>' });

const api = (key = setup.account.api_key) => client(setup.server.baseUrl, key);

async function createSubscription(
  fields: Record<string, unknown> = {},
  key = setup.account.api_key,
): Promise<{ id: string; redirectUrl: string; path: string }> {
  const created = await api(key).post('/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, ...fields });
  expect(created.status).toBe(200);
  const redirectUrl: string = created.body.redirect_url;
  return { id: created.body.subscription_id, redirectUrl, path: new URL(redirectUrl).pathname };
}

const statusOf = async (id: string) => (await api().get(`/v1/automatic-payment/subscription/${id}`)).body.status as string;
const mandateSignatures = async (id: string) =>
  (await journaledRequests(setup.server.ctx.db, { limit: 10_000 })).filter((r) => r.operation === 'mandate-sign' && r.orderId === id);
const changesOf = (id: string) => setup.server.ctx.db.selectFrom('subscription_changes').select('event').where('subscription_id', '=', id).execute();

describe('the subscription page', () => {
  it('shows the merchant and the subscription escaped, the image allowed by its CSP, in Spanish unless English is chosen', async () => {
    const { path } = await createSubscription({
      name: '<script>alert("x")</script>',
      service_reference: 'Socio <i>42</i>',
      description: '<img src=x onerror=alert(1)>',
      image_url: 'https://cdn.merchant.example/gym.png?size=big&v="2"',
      cancel_url: 'https://merchant.example/cancel?a=1&b="2"',
    });
    const session = new PayerSession(setup.server.baseUrl);
    const page = await session.get(path);
    expect(page.status).toBe(200);
    expect(titleOf(page)).toBe('Autoriza cargos automáticos');
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).not.toContain('<b>Uno</b>');
    expect(page.html).toContain('<dd class="merchant">Tienda &lt;b&gt;Uno&lt;/b&gt;</dd>');
    expect(page.html).toContain('<dd class="subscription">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</dd>');
    expect(page.html).toContain('<dd class="service-reference">Socio &lt;i&gt;42&lt;/i&gt;</dd>');
    expect(page.html).toContain('<dd class="description">&lt;img src=x onerror=alert(1)&gt;</dd>');
    expect(page.html).toContain('<img class="subscription-image" src="https://cdn.merchant.example/gym.png?size=big&amp;v=&quot;2&quot;" alt="">');
    expect(page.html).toContain('<dd class="amount">$50.000</dd>');
    expect(page.html).toContain('href="https://merchant.example/cancel?a=1&amp;b=&quot;2&quot;"');
    expect(page.html).toContain('Volver al comercio');
    expect(page.html).toMatch(/<input type="radio" name="bank_id" value="Bawdf" checked><img src="\/assets\/banks\/Bawdf.svg" alt=""> DemoBank<\/label>/);
    expect(page.html.match(/name="bank_id"/g)).toHaveLength(1);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("img-src 'self' https://cdn.merchant.example");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('script-src');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.html).toContain('<html lang="es">');

    const english = await session.get(`${path}?lang=en`);
    expect(english.html).toContain('<html lang="en">');
    expect(titleOf(english)).toBe('Authorise automatic charges');
    expect(english.html).toContain('<dd class="amount">CLP\u00a050,000</dd>');
    expect(english.html).toContain('Back to the merchant');
    // The choice is remembered on the next page of the signing.
    const signing = await startDemoBankSigning(session, `${setup.server.baseUrl}${path}`);
    const login = await session.get(signing);
    expect(login.html).toContain('<html lang="en">');
    expect(titleOf(login)).toBe('DemoBank: log in to your bank');
  });

  it('offers no bank to a production account: no bank takes mandates through Quipu yet', async () => {
    const production = await setup.server.account({ name: 'Tienda Real', developer: false });
    const { path } = await createSubscription({}, production.api_key);
    const session = new PayerSession(setup.server.baseUrl);
    const page = await session.get(path);
    expect(page.status).toBe(200);
    expect(page.html).toContain('id="no-banks"');
    expect(page.html).toContain('Ningún banco recibe todavía mandatos de cargo automático a través de Quipu');
    expect(page.html).not.toContain('Bawdf');
    expect(page.html).not.toContain('<form');
    expect(page.html).toContain('href="https://merchant.example/cancel"');
    // A forged choice of DemoBank is refused: nothing is written.
    const before = await countRows(setup.server.ctx.db, 'mandate_signings');
    const withForm = await session.get((await createSubscription()).path);
    const posted = await session.post(path, { _csrf: csrfOf(withForm), bank_id: 'Bawdf' });
    expect(posted.status).toBe(400);
    expect(await countRows(setup.server.ctx.db, 'mandate_signings')).toBe(before);
  });

  it('asks again for a bank when none is chosen', async () => {
    const { path } = await createSubscription();
    const session = new PayerSession(setup.server.baseUrl);
    const page = await session.get(path);
    const posted = await session.post(path, { _csrf: csrfOf(page) });
    expect(posted.status).toBe(400);
    expect(posted.html).toContain('Elige un banco que reciba este mandato.');
    expect(posted.html).toContain('name="bank_id"');
  });
});

describe('signing at DemoBank', () => {
  it('signs with 11 22 33: the payer lands on return_url and the subscription is ENABLED at DemoBank', async () => {
    const { id, redirectUrl } = await createSubscription();
    const tab = await mandateTabAtCoordinates(setup.server.baseUrl, redirectUrl);
    expect(titleOf(tab.page)).toBe('Firma el mandato');
    expect(tab.page.html).toContain('Autorizar a Tienda &lt;b&gt;Uno&lt;/b&gt; a cobrar en tu cuenta hasta $50.000 por cargo');
    expect(tab.page.html).toContain('Pagador: 11.111.111-1');
    expect(tab.page.html).toContain('Coordenada A1');
    expect(tab.page.headers.get('content-security-policy')).toContain("form-action 'self' https://merchant.example");
    const done = await tab.submit(DEMO_COORDINATES.pay);
    expect(done.status).toBe(303);
    expect(done.location).toBe(NEW_SUBSCRIPTION.return_url);
    expect((await api().get(`/v1/automatic-payment/subscription/${id}`)).body).toMatchObject({ status: 'ENABLED', customer_bank_code: 'Bawdf' });
  });

  it('with 99 99 99 the bank rejects the mandate: cancel_url and DISABLED', async () => {
    const { id, redirectUrl } = await createSubscription();
    expect(await signMandateThroughPages(setup.server.baseUrl, redirectUrl, { answers: DEMO_COORDINATES.fail })).toBe(NEW_SUBSCRIPTION.cancel_url);
    expect(await statusOf(id)).toBe('DISABLED');
    expect((await changesOf(id)).map((c) => c.event)).toContain('rejected-by-bank');
  });

  it(`with RUT ${PENDING_APPROVAL_RUT} the mandate waits for the bank: return_url and SIGNED`, async () => {
    const { id, redirectUrl } = await createSubscription();
    expect(await signMandateThroughPages(setup.server.baseUrl, redirectUrl, { rut: PENDING_APPROVAL_RUT })).toBe(NEW_SUBSCRIPTION.return_url);
    expect(await statusOf(id)).toBe('SIGNED');
  });

  it('asks again for wrong or malformed coordinates, signing nothing', async () => {
    const { id, redirectUrl } = await createSubscription();
    const tab = await mandateTabAtCoordinates(setup.server.baseUrl, redirectUrl);
    const wrong = await tab.submit(['12', '34', '56']);
    expect(wrong.status).toBe(403);
    expect(wrong.html).toContain('Tu banco no aceptó estas coordenadas.');
    expect(wrong.html).toContain('id="c1"');
    const malformed = await tab.submit(['1a', '', '333']);
    expect(malformed.status).toBe(400);
    expect(malformed.html).toContain('Escribe los dos dígitos de cada coordenada.');
    expect(malformed.html).toContain('id="c1"');
    expect(await statusOf(id)).toBe('DISABLED');
    expect(await changesOf(id)).toEqual([]);
    const again = await tab.session.get(tab.path);
    const signed = await tab.session.post(tab.path, { _csrf: csrfOf(again), c1: '11', c2: '22', c3: '33' });
    expect(signed.location).toBe(NEW_SUBSCRIPTION.return_url);
    expect(await statusOf(id)).toBe('ENABLED');
  });

  it('asks again for a RUT that is not valid and for a wrong password, keeping the session where it was', async () => {
    const { redirectUrl } = await createSubscription();
    const session = new PayerSession(setup.server.baseUrl);
    const signing = await startDemoBankSigning(session, redirectUrl);
    const login = await session.get(signing);
    expect(titleOf(login)).toBe('DemoBank: ingresa a tu banco');
    expect(login.html).toContain('Este es un banco de pruebas.');
    const badRut = await session.post(`${signing}/login`, { _csrf: csrfOf(login), rut: '11.111.111-2', password: '1234' });
    expect(badRut.status).toBe(400);
    expect(badRut.html).toContain('El RUT no es válido.');
    expect(badRut.html).toContain('value="11.111.111-2"');
    const wrongPassword = await session.post(`${signing}/login`, { _csrf: csrfOf(login), rut: '11.111.111-1', password: '4321' });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.html).toContain('El RUT o la clave no son correctos.');
    // Not signed in: the coordinates page sends the payer back to the sign-in.
    const sign = await session.get(`${signing}/sign`);
    expect(sign.status).toBe(303);
    expect(sign.location).toBe(signing);
  });

  it('signs once when the form is submitted twice', async () => {
    const { id, redirectUrl } = await createSubscription();
    const tab = await mandateTabAtCoordinates(setup.server.baseUrl, redirectUrl);
    const answers = await Promise.all([tab.submit(DEMO_COORDINATES.pay), tab.submit(DEMO_COORDINATES.pay)]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 409]);
    const second = answers.find((a) => a.status === 409)!;
    expect(second.html).toContain('Este mandato ya fue enviado a tu banco; no se firmó otra vez.');
    expect(await mandateSignatures(id)).toHaveLength(1);
    expect((await changesOf(id)).filter((c) => c.event === 'signed')).toHaveLength(1);
    expect(await statusOf(id)).toBe('ENABLED');
  });

  it('refuses a form without its CSRF token, writing nothing', async () => {
    const { id, path } = await createSubscription();
    const session = new PayerSession(setup.server.baseUrl);
    await session.get(path);
    const before = await countRows(setup.server.ctx.db, 'mandate_signings');
    const forged = await session.post(path, { bank_id: 'Bawdf' });
    expect(forged.status).toBe(403);
    expect(titleOf(forged)).toBe('Formulario no válido');
    expect(forged.html).toContain('Vuelve a la página del mandato');
    expect(await countRows(setup.server.ctx.db, 'mandate_signings')).toBe(before);

    const tab = await mandateTabAtCoordinates(setup.server.baseUrl, `${setup.server.baseUrl}${path}`);
    expect((await tab.session.post(tab.path, { c1: '11', c2: '22', c3: '33' })).status).toBe(403);
    expect(await statusOf(id)).toBe('DISABLED');
    expect(await mandateSignatures(id)).toEqual([]);
  });

  it('answers 404 pages for ids that are malformed or unknown', async () => {
    const session = new PayerSession(setup.server.baseUrl);
    const unknown = '0b6f2a4e-8c1d-4d3a-9f5e-2a7b3c4d5e6f';
    for (const path of [
      '/pac-manager/not-a-uuid',
      `/pac-manager/${unknown}`,
      '/pac-manager/signing/nope',
      `/pac-manager/signing/${unknown}`,
      `/pac-manager/signing/${unknown}/sign`,
    ]) {
      const page = await session.get(path);
      expect(page.status, path).toBe(404);
      expect(titleOf(page)).toBe('Mandato no encontrado');
    }
  });

  it('shows a subscription that can no longer be signed as it stands, with no form', async () => {
    const signed = await createSubscription();
    await signMandateThroughPages(setup.server.baseUrl, signed.redirectUrl);
    const session = new PayerSession(setup.server.baseUrl);
    const page = await session.get(signed.path);
    expect(page.status).toBe(200);
    expect(titleOf(page)).toBe('Mandato vigente');
    expect(page.html).toContain('data-state="enabled"');
    expect(page.html).not.toContain('<form');
    expect(page.html).toContain(`href="${NEW_SUBSCRIPTION.return_url}"`);

    const rejected = await createSubscription();
    await signMandateThroughPages(setup.server.baseUrl, rejected.redirectUrl, { answers: DEMO_COORDINATES.fail });
    const over = await session.get(`${rejected.path}?lang=en`);
    expect(titleOf(over)).toBe('Mandate rejected');
    expect(over.html).toContain('Your bank rejected this mandate: it can no longer be signed.');
    expect(over.html).toContain(`href="${NEW_SUBSCRIPTION.cancel_url}"`);
    expect(over.html).not.toContain('<form');
  });

  it('ends a session that was left open for more than 30 minutes, offering to start again', async () => {
    const { id, redirectUrl, path } = await createSubscription();
    const tab = await mandateTabAtCoordinates(setup.server.baseUrl, redirectUrl);
    setup.server.ctx.clocks.setOffset(setup.server.ctx.clock.offsetMs + 31 * MINUTE);
    const late = await tab.submit(DEMO_COORDINATES.pay);
    expect(late.status).toBe(409);
    expect(titleOf(late)).toBe('Sesión vencida');
    expect(late.html).toContain(`<a class="button" id="start-again" href="${path}">`);
    expect(late.html).toContain(`href="${NEW_SUBSCRIPTION.cancel_url}"`);
    expect(await statusOf(id)).toBe('DISABLED');
    expect(await mandateSignatures(id)).toEqual([]);
    // A new session signs.
    expect(await signMandateThroughPages(setup.server.baseUrl, redirectUrl)).toBe(NEW_SUBSCRIPTION.return_url);
  });
});

describe("a charge intent's payment on the payer pages", () => {
  it('is collected by direct debit: no page offers to pay or decline it, and a forged attempt is refused', async () => {
    const { id, redirectUrl } = await createSubscription();
    await signMandateThroughPages(setup.server.baseUrl, redirectUrl);
    const created = await api().post('/v1/automatic-payment/charge-intent', newCharge(id));
    expect(created.status).toBe(200);
    const paymentId: string = created.body.payment_id;
    const session = new PayerSession(setup.server.baseUrl);
    for (const path of [`/payment/info/${paymentId}`, `/payment/simplified/${paymentId}`, `/payment/manual/${paymentId}`]) {
      const page = await session.get(path);
      expect(page.status, path).toBe(200);
      expect(page.html).toContain('Este cobro se recauda por cargo automático en la cuenta del pagador');
      expect(page.html).not.toContain('<form');
      expect(page.html).not.toContain('>Pagar</a>');
      expect(page.html).not.toContain('Cuenta de recaudación');
    }
    const token = csrfOf(
      await session.get(`/payment/info/${(await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Other' })).body.payment_id}`),
    );
    const attempts = await countRows(setup.server.ctx.db, 'payment_attempts');
    const forged = await session.post(`/payment/simplified/${paymentId}`, { _csrf: token, bank_id: 'Bawdf', payer_email: 'payer@example.com' });
    expect(forged.status).toBe(409);
    expect(forged.html).toContain('Este cobro se recauda por cargo automático');
    expect(await countRows(setup.server.ctx.db, 'payment_attempts')).toBe(attempts);
    expect((await session.post(`/payment/info/${paymentId}/decline`, { _csrf: token })).status).toBe(409);
    expect((await api().get(`/v3/payments/${paymentId}`)).body).toMatchObject({ status: 'pending', status_detail: 'pending' });
    // Once its debit is with the bank, the payer reads it as being verified, still without a way to pay.
    await collectDebits(setup.server.ctx);
    const verifying = await session.get(`/payment/info/${paymentId}`);
    expect(verifying.html).toContain('data-status="verifying"');
    expect(verifying.html).toContain('Este cobro se recauda por cargo automático');
  });
});
