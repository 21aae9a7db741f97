// The merchant dashboard, as a browser reduced to HTTP: sign-in (wrong passwords, forged forms,
// rate limits, sessions that end for good on sign-out or a password reset), the pages of one
// account's data and never another's, the payment actions and the ones its state forbids, the
// settings' credentials, and escaping of every merchant- and payer-provided value.
import { beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { resetDashboardPassword } from '../../src/app/reset-dashboard-password.js';
import { SIGN_IN_THROTTLES } from '../../src/domain/sign-in-throttle.js';
import { reconciledPayment } from '../helpers/delivery.js';
import { parse } from 'csv-parse/sync';
import { client } from '../helpers/http.js';
import { csrfOf, type PageResponse, PayerSession, titleOf } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, type TestAccount, useTestServer } from '../helpers/server.js';
import { createSubscriptionOver } from '../helpers/subscriptions.js';

const SIGN_IN = '/dashboard/sign-in';
const SESSION_COOKIE = 'quipu_session';
const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'';

let other: TestAccount;
let user: DashboardCredentials;

const setup = useTestServer({}, { name: `Shop ${XSS}`, features: { refunds: true } });
beforeAll(async () => {
  other = await setup.server.account({ name: 'Other shop' });
  user = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'Owner@Shop.test' });
});

const api = (key = setup.account.api_key) => client(setup.server.baseUrl, key);

async function signIn(credentials: { email: string; password: string } = user): Promise<{ session: PayerSession; answer: PageResponse }> {
  const session = new PayerSession(setup.server.baseUrl);
  const form = await session.get(SIGN_IN);
  const answer = await session.post(SIGN_IN, { _csrf: csrfOf(form), email: credentials.email, password: credentials.password });
  return { session, answer };
}

async function signedIn(): Promise<PayerSession> {
  const { session, answer } = await signIn();
  expect(answer.status).toBe(303);
  return session;
}

async function newPayment(fields: Record<string, unknown> = {}, key = setup.account.api_key): Promise<string> {
  const created = await api(key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Order 42', ...fields });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

/** Posts one of the page's forms, found by its action, with the page's token. */
const submit = (session: PayerSession, page: PageResponse, action: string, fields: Record<string, string> = {}) =>
  session.post(action, { _csrf: csrfOf(page), ...fields });

const statusOf = async (id: string) => (await api().get(`/v3/payments/${id}`)).body.status as string;

describe('signing in', () => {
  it('answers / with the dashboard, and its pages with the sign-in form until signed in', async () => {
    const session = new PayerSession(setup.server.baseUrl);
    const root = await session.get('/');
    expect(root.status).toBe(303);
    expect(root.location).toBe('/dashboard');
    const home = await session.get('/dashboard');
    expect(home.status).toBe(303);
    expect(home.location).toBe(SIGN_IN);
    const form = await session.get(SIGN_IN);
    expect(form.status).toBe(200);
    expect(titleOf(form)).toBe('Ingresa a tu panel');
    expect(form.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(form.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(form.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(titleOf(await session.get(`${SIGN_IN}?lang=en`))).toBe('Sign in to your dashboard');
  });

  it('refuses a wrong password and an unknown email alike, and starts no session', async () => {
    const wrong = await signIn({ email: user.email, password: 'not-the-password' });
    expect(wrong.answer.status).toBe(401);
    expect(wrong.answer.html).toContain('El correo o la contraseña no son correctos.');
    expect(wrong.answer.html).toContain(`value="${user.email}"`);
    expect(wrong.session.cookies.has(SESSION_COOKIE)).toBe(false);
    const unknown = await signIn({ email: 'nobody@shop.test', password: user.password });
    expect(unknown.answer.status).toBe(401);
    expect(unknown.answer.html).toContain('El correo o la contraseña no son correctos.');
    expect((await unknown.session.get('/dashboard')).location).toBe(SIGN_IN);
  });

  it('refuses a sign-in without the form’s token', async () => {
    const session = new PayerSession(setup.server.baseUrl);
    await session.get(SIGN_IN);
    const forged = await session.post(SIGN_IN, { email: user.email, password: user.password });
    expect(forged.status).toBe(403);
    expect(titleOf(forged)).toBe('Formulario no válido');
    expect(session.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('gives an HttpOnly, SameSite=Lax session cookie, whatever the case of the email typed', async () => {
    const { session, answer } = await signIn({ email: 'OWNER@shop.TEST', password: user.password });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/dashboard');
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(cookie).toContain('Path=/;');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    const home = await session.get('/dashboard');
    expect(home.status).toBe(200);
    expect(home.html).toContain('owner@shop.test');
    // Only its hash is stored: the cookie's token is nowhere in the database.
    const stored = await setup.server.ctx.db.selectFrom('dashboard_sessions').select('token_hash').execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(session.cookies.get(SESSION_COOKIE));
  });

  it('ends the session on sign-out: the cookie and the forms of the old session change nothing', async () => {
    const session = await signedIn();
    const id = await newPayment();
    const page = await session.get(`/dashboard/payments/${id}`);
    const stolenCookie = session.cookies.get(SESSION_COOKIE)!;
    const out = await submit(session, page, '/dashboard/sign-out');
    expect(out.status).toBe(303);
    expect(out.location).toBe(SIGN_IN);
    expect((await session.get('/dashboard')).location).toBe(SIGN_IN);
    // The same cookie, kept by whoever copied it, and a form of the old session replayed with it.
    const replay = new PayerSession(setup.server.baseUrl);
    replay.cookies.set(SESSION_COOKIE, stolenCookie);
    for (const [name, value] of session.cookies) if (name !== SESSION_COOKIE) replay.cookies.set(name, value);
    expect((await replay.get(`/dashboard/payments/${id}`)).location).toBe(SIGN_IN);
    const replayed = await submit(replay, page, `/dashboard/payments/${id}/mark-paid`);
    expect(replayed.status).toBe(303);
    expect(replayed.location).toBe(SIGN_IN);
    expect(await statusOf(id)).toBe('pending');
  });

  it('slows wrong passwords from one address for one email: past the free ones even the right one waits, told how long', async () => {
    const victim = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'victim@shop.test' });
    for (let i = 0; i < SIGN_IN_THROTTLES.pair.free; i++) expect((await signIn({ email: victim.email, password: `guess-${i}` })).answer.status).toBe(401);
    const limited = await signIn(victim);
    expect(limited.answer.status).toBe(429);
    expect(Number(limited.answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.answer.html).toContain('Demasiados intentos fallidos');
    expect(limited.session.cookies.has(SESSION_COOKIE)).toBe(false);
    // Another email from elsewhere is not held back by this one's failures.
    expect((await signIn()).answer.status).toBe(303);
  });

  it('ends every session of a user whose password is reset, and takes the new password only', async () => {
    const person = await addDashboardUser(setup.server.ctx, setup.account.receiver_id, { password: CHOSEN_PASSWORD, email: 'reset@shop.test' });
    const { session } = await signIn(person);
    expect((await session.get('/dashboard')).status).toBe(200);
    const renewed = await resetDashboardPassword(setup.server.ctx, 'Reset@Shop.test');
    expect(renewed.password).not.toBe(person.password);
    expect((await session.get('/dashboard')).location).toBe(SIGN_IN);
    expect((await signIn(person)).answer.status).toBe(401);
    expect((await signIn(renewed)).answer.status).toBe(303);
  });
});

describe("one account's data", () => {
  it("answers another account's payment, event, subscription and email with a 404 page", async () => {
    const session = await signedIn();
    const theirPayment = await newPayment({ payer_email: 'p@example.com', payer_name: 'P', send_email: true }, other.api_key);
    const theirEvent = (await setup.server.ctx.db.selectFrom('messages').select('message_id').where('subject_id', '=', theirPayment).executeTakeFirstOrThrow())
      .message_id;
    const theirSubscription = await createSubscriptionOver(client(setup.server.baseUrl, other.api_key));
    for (const path of [
      `/dashboard/payments/${theirPayment}`,
      `/dashboard/events/${theirEvent}`,
      `/dashboard/subscriptions/${theirSubscription}`,
      `/dashboard/developer/emails/${theirEvent}`,
      `/dashboard/developer/emails/${theirEvent}/html`,
      '/dashboard/payments/not-an-id',
      '/dashboard/no-such-page',
    ]) {
      const page = await session.get(path);
      expect(page.status, path).toBe(404);
      expect(titleOf(page), path).toBe('No encontrado');
    }
    const page = await session.get(`/dashboard/payments/${theirPayment}`);
    const refused = await submit(session, page, `/dashboard/payments/${theirPayment}/mark-paid`);
    expect(refused.status).toBe(404);
    const resend = await submit(session, page, `/dashboard/events/${theirEvent}/resend`);
    expect(resend.status).toBe(404);
    expect((await client(setup.server.baseUrl, other.api_key).get(`/v3/payments/${theirPayment}`)).body.status).toBe('pending');
    const list = await session.get(`/dashboard/payments?q=${theirPayment}`);
    expect(list.html).toContain('Ningún pago coincide.');
    expect(list.html).not.toContain(`/dashboard/payments/${theirPayment}`);
  });
});

describe('payments', () => {
  it('finds a payment by its subject and shows every field, its timeline and its messages', async () => {
    const session = await signedIn();
    const id = await newPayment({
      subject: 'Blue teapot 7731',
      transaction_id: 'tx-7731',
      payer_email: 'ana@example.com',
      payer_name: 'Ana',
      send_email: true,
    });
    await newPayment({ subject: 'Red mug' });
    const list = await session.get('/dashboard/payments?q=teapot');
    expect(list.status).toBe(200);
    expect(list.html).toContain(`href="/dashboard/payments/${id}"`);
    expect(list.html).not.toContain('Red mug');
    expect((await session.get('/dashboard/payments?q=tx-7731')).html).toContain(id);
    expect((await session.get('/dashboard/payments?status=done')).html).not.toContain(id);
    // A bad filter is marked on its field in the page's language; the list goes on without it.
    const bad = await session.get('/dashboard/payments?status=paid&from=yesterday&q=teapot');
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('<select id="status" name="status" aria-invalid="true" aria-describedby="status-error">');
    expect(bad.html).toContain('<p class="field-error" id="status-error">Elige un estado de la lista.</p>');
    expect(bad.html).toContain(
      'aria-invalid="true" aria-describedby="from-error"><p class="field-error" id="from-error">Escribe una fecha como 2026-11-26.</p>',
    );
    expect(bad.html).not.toContain('must be');
    expect(bad.html).toContain(`href="/dashboard/payments/${id}"`);
    expect(bad.html).not.toContain('Red mug');
    expect((await session.get('/dashboard/payments?from=yesterday&lang=en')).html).toContain('Write a date such as 2026-11-26.');
    await session.get('/dashboard/payments?lang=es');

    const page = await session.get(`/dashboard/payments/${id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<dd data-field="transaction_id"><code class="id" title="tx-7731" data-copy="tx-7731">tx-7731</code></dd>');
    expect(page.html).toContain('<dd data-field="amount">1000</dd>');
    expect(page.html).toContain('$1.000');
    expect(page.html).toMatch(/<ol class="timeline"><li><time datetime="[^"]+" title="[^"]+">\d{1,2} [a-z]+\.? · \d\d:\d\d<\/time>Creado<\/li>/);
    expect(page.html).toContain('payment.email.collection');
    expect(page.html).toContain('mailto:ana@example.com');
  });

  it('pays through DemoBank, refunds part then the rest, and shows each in the timeline', async () => {
    const session = await signedIn();
    const id = await newPayment({ amount: 5000 });
    let page = await session.get(`/dashboard/payments/${id}`);
    const paid = await submit(session, page, `/dashboard/payments/${id}/demobank-pay`);
    expect(paid.status).toBe(303);
    expect(paid.location).toBe(`/dashboard/payments/${id}?done=demobank-pay`);
    expect(await statusOf(id)).toBe('done');
    page = await session.get(paid.location!);
    expect(page.html).toContain('DemoBank pagó el cobro.');
    expect(page.html).toContain('Intento de pago en DemoBank: Realizado');
    expect(page.html).toContain('Conciliado');
    const partial = await submit(session, page, `/dashboard/payments/${id}/refund`, { amount: '1500' });
    expect(partial.status).toBe(303);
    page = await session.get(partial.location!);
    expect(page.html).toContain('Reembolso de $1.500');
    const rest = await submit(session, page, `/dashboard/payments/${id}/refund`, { amount: '' });
    expect(rest.status).toBe(303);
    page = await session.get(rest.location!);
    expect(page.html).toContain('Reembolso de $3.500');
    expect((await api().get(`/v3/payments/${id}`)).body.status_detail).toBe('reversed');
    expect(page.html).not.toContain(`action="/dashboard/payments/${id}/refund"`);
  });

  it('refuses an action the state or the contract forbids with a clear message, changing nothing', async () => {
    const session = await signedIn();
    const pending = await newPayment();
    const page = await session.get(`/dashboard/payments/${pending}`);
    expect(page.html).not.toContain(`action="/dashboard/payments/${pending}/refund"`);
    // A refusal comes back to the payment's page (never left on the POST's address), saying why in the page's language.
    const refund = await submit(session, page, `/dashboard/payments/${pending}/refund`, { amount: '100' });
    expect(refund.status).toBe(303);
    expect(refund.location).toBe(`/dashboard/payments/${pending}?refused=state`);
    const refused = await session.get(refund.location!);
    expect(refused.html).toContain('No se hizo nada: El estado actual no lo permite.');
    expect(refused.html).not.toContain('Only paid payments');
    expect((await api().get(`/v3/payments/${pending}`)).body.status_detail).toBe('pending');
    // Confirmation is not contracted by this account.
    const paid = await reconciledPayment(setup.server, setup.account);
    const confirm = await submit(session, page, `/dashboard/payments/${paid.paymentId}/confirm`);
    expect(confirm.location).toBe(`/dashboard/payments/${paid.paymentId}?refused=forbidden`);
    expect((await session.get(`${confirm.location!}&lang=en`)).html).toContain('Nothing was done: This account may not do this');
    await session.get(`${confirm.location!}&lang=es`);
    const paidPage = await session.get(`/dashboard/payments/${paid.paymentId}`);
    const remove = await submit(session, paidPage, `/dashboard/payments/${paid.paymentId}/delete`);
    expect(remove.location).toBe(`/dashboard/payments/${paid.paymentId}?refused=state`);
    expect(await statusOf(paid.paymentId)).toBe('done');
    // A bad field is marked on the form, answered as forms are (400), the amount typed kept.
    const marked = await submit(session, paidPage, `/dashboard/payments/${paid.paymentId}/refund`, { amount: '5000' });
    expect(marked.status).toBe(400);
    expect(marked.html).toContain('name="amount" value="5000" aria-invalid="true" aria-describedby="notice"');
    expect(marked.html).toContain('Escribe un monto mayor que cero y no mayor que lo que queda por reembolsar.');
    expect((await api().get(`/v3/payments/${paid.paymentId}`)).body.status_detail).toBe('normal');
    // A code the page does not know shows nothing: the address cannot make the page say what it likes.
    expect((await session.get(`/dashboard/payments/${paid.paymentId}?refused=Send+money+to+evil`)).html).not.toContain('evil');
    // The audit log records each refusal as refused, though the answer was a redirect.
    const outcomes = await setup.server.ctx.db
      .selectFrom('audit_log')
      .select(['action', 'outcome'])
      .where('target', 'in', [`/dashboard/payments/${pending}/refund`, `/dashboard/payments/${paid.paymentId}/delete`])
      .execute();
    expect(outcomes).toEqual(
      expect.arrayContaining([
        { action: 'payment.refund', outcome: 'refused' },
        { action: 'payment.delete', outcome: 'refused' },
      ]),
    );
  });

  it('marks a payment paid and deletes a pending one', async () => {
    const session = await signedIn();
    const marked = await newPayment();
    let page = await session.get(`/dashboard/payments/${marked}`);
    expect((await submit(session, page, `/dashboard/payments/${marked}/mark-paid`)).status).toBe(303);
    expect((await api().get(`/v3/payments/${marked}`)).body.status_detail).toBe('marked-paid-by-receiver');
    const deleted = await newPayment();
    page = await session.get(`/dashboard/payments/${deleted}`);
    const gone = await submit(session, page, `/dashboard/payments/${deleted}/delete`);
    expect(gone.location).toBe('/dashboard/payments?done=delete');
    expect((await api().get(`/v3/payments/${deleted}`)).status).toBe(404);
  });

  it('leaves a DemoBank transfer uncertain, lists it as needing attention, then confirms it', async () => {
    const session = await signedIn();
    const id = await newPayment({ amount: 2000 });
    let page = await session.get(`/dashboard/payments/${id}`);
    expect((await submit(session, page, `/dashboard/payments/${id}/demobank-pay-uncertain`)).status).toBe(303);
    expect(await statusOf(id)).toBe('verifying');
    const home = await session.get('/dashboard');
    expect(home.html).toContain('Transferencias sin respuesta del banco');
    expect(home.html).toContain(`href="/dashboard/payments/${id}"`);
    page = await session.get(`/dashboard/payments/${id}`);
    expect((await submit(session, page, `/dashboard/payments/${id}/demobank-confirm`)).status).toBe(303);
    expect(await statusOf(id)).toBe('done');
  });
});

describe('home', () => {
  it("shows today's and the last 30 days' payments per currency with an SVG chart", async () => {
    const fresh = await setup.server.account({ name: 'Fresh' });
    const person = await addDashboardUser(setup.server.ctx, fresh.receiver_id, { password: CHOSEN_PASSWORD, email: 'fresh@shop.test' });
    const { session } = await signIn(person);
    expect((await session.get('/dashboard')).html).toContain('Aún no hay pagos.');
    await reconciledPayment(setup.server, fresh, { amount: 1500 });
    await newPayment({ amount: 700 }, fresh.api_key);
    const home = await session.get('/dashboard');
    expect(home.status).toBe(200);
    const today = /<div class="card"><h3>Hoy · CLP<\/h3>[\s\S]*?<\/div>/.exec(home.html)![0];
    expect(today).toContain('<dd class="created">2</dd>');
    expect(today).toContain('<dd class="paid">1</dd>');
    expect(today).toContain('$1.500');
    expect(home.html).toContain('<svg class="chart"');
    expect(home.html.match(/<rect class="bar"/g)?.length).toBeGreaterThanOrEqual(30);
  });
});

describe('home totals', () => {
  it('counts a payment refunded in full as not paid, and one refunded in part for what it kept', async () => {
    const shop = await setup.server.account({ name: 'Refunds', features: { refunds: true } });
    const person = await addDashboardUser(setup.server.ctx, shop.receiver_id, { password: CHOSEN_PASSWORD, email: 'refunds@shop.test' });
    const { session } = await signIn(person);
    const whole = await reconciledPayment(setup.server, shop, { amount: 1500 });
    const part = await reconciledPayment(setup.server, shop, { amount: 3000 });
    const refunds = client(setup.server.baseUrl, shop.api_key);
    expect((await refunds.post(`/v3/payments/${whole.paymentId}/refunds`, {})).status).toBe(200);
    expect((await refunds.post(`/v3/payments/${part.paymentId}/refunds`, { amount: 1000 })).status).toBe(200);
    const today = /<div class="card"><h3>Hoy · CLP<\/h3>[\s\S]*?<\/div>/.exec((await session.get('/dashboard')).html)![0];
    expect(today).toContain('<dd class="created">2</dd>');
    expect(today).toContain('<dd class="paid">1</dd>');
    expect(today).toContain('$2.000');
  });
});

describe('the payments CSV', () => {
  it('holds every payment the filters find, values as the API gives them, formulas made inert', async () => {
    const session = await signedIn();
    const ids = [await newPayment({ subject: '=HYPERLINK("x") csv-7' }), await newPayment({ subject: 'Plain, csv-7', amount: 2500 })];
    const file = await session.get('/dashboard/payments.csv?q=csv-7');
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="payments.csv"');
    const rows = parse(file.html, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.payment_id).sort()).toEqual([...ids].sort());
    expect(rows.find((r) => r.payment_id === ids[0])!.subject).toBe(`'=HYPERLINK("x") csv-7`);
    expect(rows.find((r) => r.payment_id === ids[1])).toMatchObject({
      subject: 'Plain, csv-7',
      amount: '2500',
      refunded: '0',
      status: 'pending',
      currency: 'CLP',
    });
    const bad = await session.get('/dashboard/payments.csv?from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('La solicitud no es válida. (from)');
  });
});

describe('events', () => {
  it('lists the messages sent, shows one with its attempts, and sends it again', async () => {
    const session = await signedIn();
    const id = await newPayment({ payer_email: 'ana@example.com', payer_name: 'Ana', send_email: true });
    const list = await session.get('/dashboard/events?kind=payment.email.collection');
    const messageId = new RegExp(`<tr data-message-id="([^"]+)">(?:(?!</tr>).)*<code>payment.email.collection</code>(?:(?!</tr>).)*data-copy="${id}"`).exec(
      list.html,
    )![1]!;
    const page = await session.get(`/dashboard/events/${messageId}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`href="/dashboard/payments/${id}"`);
    const resent = await submit(session, page, `/dashboard/events/${messageId}/resend`, { back: 'https://evil.example/' });
    expect(resent.status).toBe(303);
    expect(resent.location).toBe(`/dashboard/events/${messageId}?done=resend`);
    expect((await session.get(resent.location!)).html).toContain('El mensaje se enviará de nuevo ahora.');
  });
});

describe('settings', () => {
  it('reveals the API key only on a POST, and rotates it only with the confirmation', async () => {
    const owned = await setup.server.account({ name: 'Keys' });
    const person = await addDashboardUser(setup.server.ctx, owned.receiver_id, { password: CHOSEN_PASSWORD, email: 'keys@shop.test' });
    const { session } = await signIn(person);
    const page = await session.get('/dashboard/settings');
    expect(page.html).not.toContain(owned.api_key);
    expect(page.html).not.toContain(owned.secret);
    const revealed = await submit(session, page, '/dashboard/settings/reveal');
    expect(revealed.html).toContain(`<dd class="secret" data-copy="${owned.api_key}" id="api-key">${owned.api_key}</dd>`);
    expect(revealed.html).toContain(owned.secret);

    const unconfirmed = await submit(session, page, '/dashboard/settings/rotate-key');
    expect(unconfirmed.status).toBe(400);
    expect((await client(setup.server.baseUrl, owned.api_key).get('/v3/banks')).status).toBe(200);
    const rotated = await submit(session, page, '/dashboard/settings/rotate-key', { confirm: 'yes' });
    expect(rotated.status).toBe(200);
    const newKey = /id="api-key">([0-9a-f-]{36})</.exec(rotated.html)![1]!;
    expect(newKey).not.toBe(owned.api_key);
    expect((await client(setup.server.baseUrl, newKey).get('/v3/banks')).status).toBe(200);
    expect((await client(setup.server.baseUrl, owned.api_key).get('/v3/banks')).status).toBe(401);
  });

  it('saves the account URLs and redirect URIs, and with a bad field saves nothing', async () => {
    const owned = await setup.server.account({ name: 'Urls' });
    const person = await addDashboardUser(setup.server.ctx, owned.receiver_id, { password: CHOSEN_PASSWORD, email: 'urls@shop.test' });
    const { session } = await signIn(person);
    const page = await session.get('/dashboard/settings');
    const bad = await submit(session, page, '/dashboard/settings', {
      notify_url: 'not a url',
      notify_api_version: '1.3',
      rendition_url: 'ftp://x',
      redirect_uris: '',
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Revisa los campos marcados');
    expect(bad.html).toContain('value="not a url" aria-invalid="true" aria-describedby="notify_url-error">');
    expect(bad.html).toContain('<p class="error" id="notify_url-error">Escribe una dirección web completa');
    expect(bad.html).not.toContain('must');
    expect((await setup.server.ctx.merchants.byReceiverId(owned.receiver_id))!.notifyApiVersion).toBe('3.0');
    const saved = await submit(session, page, '/dashboard/settings', {
      notify_url: 'https://shop.example/notify',
      notify_api_version: '1.3',
      rendition_url: '',
      redirect_uris: 'https://shop.example/callback\r\nhttps://shop.example/other',
    });
    expect(saved.location).toBe('/dashboard/settings?done=saved');
    const after = await session.get(saved.location!);
    expect(after.html).toContain('value="https://shop.example/notify"');
    expect(after.html).toContain('https://shop.example/callback\nhttps://shop.example/other</textarea>');
    expect((await setup.server.ctx.merchants.byReceiverId(owned.receiver_id))!.notifyApiVersion).toBe('1.3');
  });
});

describe('developer mode', () => {
  it('moves the clock forward and back to real time, refusing a bad duration', async () => {
    const session = await signedIn();
    const page = await session.get('/dashboard/developer');
    expect(page.html).toContain('<dd id="clock-offset">0</dd>');
    const bad = await submit(session, page, '/dashboard/developer/clock/advance', { advance: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Escribe una duración como 90s, 5m, 3h o 2d.');
    expect((await submit(session, page, '/dashboard/developer/clock/advance', { advance: '2d' })).status).toBe(303);
    expect((await session.get('/dashboard/developer')).html).toContain('<dd id="clock-offset">+2d</dd>');
    // Sessions are on the wall clock: two days ahead, still signed in.
    expect((await session.get('/dashboard')).status).toBe(200);
    expect((await submit(session, page, '/dashboard/developer/clock/reset')).status).toBe(303);
    expect((await session.get('/dashboard/developer')).html).toContain('<dd id="clock-offset">0</dd>');
  });

  it("runs a scenario from its row and opens what it made; a form without the page's token runs nothing", async () => {
    const session = await signedIn();
    const page = await session.get('/dashboard/developer');
    for (const id of ['transfer-pays', 'mandate-enabled', 'charge-refused']) expect(page.html).toContain(`action="/dashboard/developer/scenarios/${id}/run"`);
    const subjects = async () =>
      (await setup.server.ctx.db.selectFrom('payments').select('subject').where('receiver_id', '=', setup.account.receiver_id).execute()).map((p) => p.subject);

    const forged = await session.post('/dashboard/developer/scenarios/transfer-pays/run', {});
    expect(forged.status).toBe(403);
    expect(titleOf(forged)).toBe('Formulario no válido');
    expect(await subjects()).not.toContain('Scenario transfer-pays');

    const paid = await submit(session, page, '/dashboard/developer/scenarios/transfer-pays/run');
    expect(paid.status).toBe(303);
    const paymentId = /^\/dashboard\/payments\/([a-z0-9]{12})$/.exec(paid.location ?? '')?.[1];
    expect(paymentId, paid.location ?? '').toBeDefined();
    const paymentPage = await session.get(paid.location!);
    expect(paymentPage.html).toContain('Scenario transfer-pays');
    expect(await statusOf(paymentId!)).toBe('done');

    const enabled = await submit(session, page, '/dashboard/developer/scenarios/mandate-enabled/run');
    expect(enabled.status).toBe(303);
    expect(enabled.location).toMatch(/^\/dashboard\/subscriptions\/[0-9a-f-]{36}$/);
    expect((await session.get(enabled.location!)).html).toContain(
      '<dd id="status"><span class="pill pill-ok" title="ENABLED · enabled" data-value="ENABLED · enabled">Activa</span>',
    );

    const before = await subjects();
    const refused = await submit(session, page, '/dashboard/developer/scenarios/charge-refused/run');
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('El escenario terminó en un rechazo: la API respondió 400 sobre amount y no escribió nada.');
    expect(await subjects()).toEqual(before);

    const unknown = await submit(session, page, '/dashboard/developer/scenarios/charge-explodes/run');
    expect(unknown.status).toBe(404);
    expect(titleOf(unknown)).toBe('No encontrado');
  });

  it("refuses to run a scenario for a production account's user", async () => {
    const production = await setup.server.account({ developer: false, name: 'Production shop' });
    const owner = await addDashboardUser(setup.server.ctx, production.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@production.test' });
    const { session } = await signIn(owner);
    const page = await session.get('/dashboard');
    const refused = await submit(session, page, '/dashboard/developer/scenarios/transfer-pays/run');
    expect(refused.status).toBe(403);
    expect(await setup.server.ctx.db.selectFrom('payments').select('payment_id').where('receiver_id', '=', production.receiver_id).execute()).toEqual([]);
  });

  it('shows each email of the inbox as the payer sees it, in a sandboxed frame', async () => {
    const session = await signedIn();
    const id = await newPayment({ subject: 'Inbox teapot', payer_email: 'ana@example.com', payer_name: 'Ana', send_email: true });
    const messageId = (
      await setup.server.ctx.db
        .selectFrom('messages')
        .select('message_id')
        .where('subject_id', '=', id)
        .where('kind', '=', 'payment.email.collection')
        .executeTakeFirstOrThrow()
    ).message_id;
    const inbox = await session.get('/dashboard/developer');
    expect(inbox.html).toContain(`href="/dashboard/developer/emails/${messageId}"`);
    const page = await session.get(`/dashboard/developer/emails/${messageId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-src 'self'");
    expect(page.html).toContain(`<iframe class="email" title="`);
    expect(page.html).toContain('sandbox');
    const body = await session.get(`/dashboard/developer/emails/${messageId}/html`);
    expect(body.status).toBe(200);
    expect(body.headers.get('content-security-policy')).toContain('sandbox');
    expect(body.html).toContain('Inbox teapot');
    expect(body.html).toContain(`/payment/info/${id}`);
  });
});

describe('escaping', () => {
  it('shows every merchant- and payer-provided value as text, never as markup', async () => {
    const session = await signedIn();
    const id = await newPayment({
      subject: `S ${XSS}`,
      body: `B ${XSS}`,
      custom: `C ${XSS}`,
      transaction_id: `T${XSS}`.slice(0, 40),
      payer_email: 'xss@example.com',
      payer_name: `N ${XSS}`,
      send_email: true,
      return_url: `https://shop.example/ok?a=${encodeURIComponent(XSS)}`,
      notify_url: 'https://shop.example/notify"><script>alert(3)</script>',
    });
    const pages = await Promise.all([
      session.get('/dashboard'),
      session.get('/dashboard/payments'),
      session.get(`/dashboard/payments/${id}`),
      session.get('/dashboard/events'),
      session.get('/dashboard/developer'),
      session.get('/dashboard/settings'),
    ]);
    const messageId = (await setup.server.ctx.db.selectFrom('messages').select('message_id').where('subject_id', '=', id).executeTakeFirstOrThrow()).message_id;
    pages.push(await session.get(`/dashboard/events/${messageId}`), await session.get(`/dashboard/developer/emails/${messageId}`));
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.html).not.toMatch(/<script>alert|<img src=x/);
    }
    const payment = pages[2]!.html;
    expect(payment).toContain('S &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;');
    expect(payment).toContain('data-field="custom">C &lt;script&gt;');
    expect(payment).toContain('data-field="payer_name">N &lt;script&gt;');
    expect(payments(pages[1]!)).toContain('S &lt;script&gt;');
    expect(pages[0]!.html).toContain('Shop &lt;script&gt;');
  });
});

const payments = (page: PageResponse) => /<table class="payments stacking">[\s\S]*<\/table>/.exec(page.html)?.[0] ?? '';

describe("an account's clock on the dashboard", () => {
  it('says on every page when the clock runs ahead, for that account alone, and counts today again after a reset', async () => {
    const ahead = await setup.server.account({ name: 'Clock ahead' });
    const person = await addDashboardUser(setup.server.ctx, ahead.receiver_id, { password: CHOSEN_PASSWORD, email: 'ahead@shop.test' });
    const { session } = await signIn(person);
    const others = await signedIn();
    expect((await session.get('/dashboard')).html).not.toContain('id="clock-strip"');

    expect((await api(ahead.api_key).post('/sandbox/clock', { advance: '2d' })).status).toBe(200);
    await reconciledPayment(setup.server, ahead, { amount: 1200 });
    for (const page of ['/dashboard', '/dashboard/payments', '/dashboard/developer']) {
      expect((await session.get(page)).html).toContain('Modo desarrollo · reloj +2d');
    }
    expect((await others.get('/dashboard')).html).not.toContain('id="clock-strip"');

    // Back on the installation's clock, the payment made "two days ahead" was made today: the
    // account's dates came back with its clock.
    expect((await api(ahead.api_key).post('/sandbox/clock/reset')).status).toBe(200);
    const home = (await session.get('/dashboard')).html;
    expect(home).not.toContain('id="clock-strip"');
    const today = /<div class="card"><h3>Hoy · CLP<\/h3>[\s\S]*?<\/div>/.exec(home)![0];
    expect(today).toContain('<dd class="paid">1</dd>');
  });
});
