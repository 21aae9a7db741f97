// DemoBank's portal, as a payer's browser reduced to HTTP: sign in with a RUT, see the mandates
// signed at DemoBank, revoke one (the subscription becomes DISABLED and the merchant is told
// "disabled"), sign out. The defences: CSRF on every form, a sealed session cookie scoped to the
// portal, another payer's mandate out of reach even through a forged form.
import { moveClock } from '../../src/app/developer-clock.js';
import { describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { csrfOf, type PageResponse, PayerSession, titleOf } from '../helpers/payer-session.js';
import { useTestServer } from '../helpers/server.js';
import { createSubscriptionOver, signAtDemoBank } from '../helpers/subscriptions.js';

const PORTAL = '/demobank/portal';
const MANDATES = `${PORTAL}/mandates`;
const SESSION_COOKIE = 'quipu_demobank_session';

const setup = useTestServer({}, { name: 'Gym <b>"Ñuñoa"</b> & Co' });

const api = () => client(setup.server.baseUrl, setup.account.api_key);

async function signedSubscription(rut: string, fields: Record<string, unknown> = {}): Promise<string> {
  const id = await createSubscriptionOver(api(), fields);
  await signAtDemoBank(setup.server.ctx, id, rut);
  return id;
}

const statusOf = async (id: string) => (await api().get(`/v1/automatic-payment/subscription/${id}`)).body.status as string;
const signingBodies = async (id: string) =>
  (
    await setup.server.ctx.db
      .selectFrom('messages')
      .select('body')
      .where('kind', '=', 'subscription.signing')
      .where('subject_id', '=', id)
      .orderBy('created_at')
      .execute()
  ).map((r) => JSON.parse(r.body));

async function signIn(rut: string): Promise<{ session: PayerSession; signedIn: PageResponse }> {
  const session = new PayerSession(setup.server.baseUrl);
  const form = await session.get(PORTAL);
  const signedIn = await session.post(`${PORTAL}/sign-in`, { _csrf: csrfOf(form), rut, password: '1234' });
  return { session, signedIn };
}

/** The list item of one mandate on the mandates page. */
function itemOf(page: PageResponse, id: string): string | undefined {
  return new RegExp(`<li class="mandate" data-mandate-id="${id}"[\\s\\S]*?</li>`).exec(page.html)?.[0];
}

describe('signing in', () => {
  it('shows the sign-in form, in Spanish and English, with the payer pages’ defences', async () => {
    const session = new PayerSession(setup.server.baseUrl);
    const page = await session.get(PORTAL);
    expect(page.status).toBe(200);
    expect(titleOf(page)).toBe('DemoBank: ingresa a tu banco');
    expect(page.html).toContain('name="rut"');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const english = await session.get(`${PORTAL}?lang=en`);
    expect(titleOf(english)).toBe('DemoBank: log in to your bank');
    expect(english.headers.getSetCookie().find((c) => c.startsWith('quipu_lang_demobank_portal='))).toContain('Path=/;');
    // The choice is remembered on the portal's other pages.
    expect(titleOf(await session.get(PORTAL))).toBe('DemoBank: log in to your bank');
  });

  it('refuses a bad RUT and a wrong password with the form again, and starts no session', async () => {
    const session = new PayerSession(setup.server.baseUrl);
    const form = await session.get(PORTAL);
    const badRut = await session.post(`${PORTAL}/sign-in`, { _csrf: csrfOf(form), rut: '11.111.111-2', password: '1234' });
    expect(badRut.status).toBe(400);
    expect(badRut.html).toContain('El RUT no es válido.');
    expect(badRut.html).toContain('value="11.111.111-2"');
    const wrongPassword = await session.post(`${PORTAL}/sign-in`, { _csrf: csrfOf(badRut), rut: '11.111.111-1', password: '4321' });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.html).toContain('El RUT o la clave no son correctos.');
    expect(session.cookies.has(SESSION_COOKIE)).toBe(false);
    const list = await session.get(MANDATES);
    expect(list.status).toBe(303);
    expect(list.location).toBe(PORTAL);
  });

  it('refuses a sign-in without the form’s token', async () => {
    const session = new PayerSession(setup.server.baseUrl);
    await session.get(PORTAL);
    const forged = await session.post(`${PORTAL}/sign-in`, { rut: '11.111.111-1', password: '1234' });
    expect(forged.status).toBe(403);
    expect(titleOf(forged)).toBe('Formulario no válido');
    expect(session.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('gives a sealed, HttpOnly, SameSite=Lax session, which a changed cookie does not pass', async () => {
    const { session, signedIn } = await signIn('15.000.000-9');
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(MANDATES);
    const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(cookie).toContain('Path=/;');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Max-Age=900');
    expect(cookie).not.toContain('15.000.000');
    expect((await session.get(PORTAL)).location).toBe(MANDATES);

    const value = session.cookies.get(SESSION_COOKIE)!;
    session.cookies.set(SESSION_COOKIE, `${value.slice(0, -6)}${value.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'}`);
    const tampered = await session.get(MANDATES);
    expect(tampered.status).toBe(303);
    expect(tampered.location).toBe(PORTAL);
  });
});

describe('the mandates page', () => {
  it("lists the payer's own mandates, escaped, and nobody else's", async () => {
    const rut = '16.000.000-7';
    const first = await signedSubscription(rut, { service_reference: 'Plan <premium>', max_amount: 45000 });
    const second = await signedSubscription('16.000.000-7', { service_reference: 'Plan basic' });
    const someoneElses = await signedSubscription('17.000.000-5');
    const { session } = await signIn('16000000-7');
    const page = await session.get(MANDATES);
    expect(page.status).toBe(200);
    expect(titleOf(page)).toBe('DemoBank: tus mandatos');
    expect(page.html).toContain('Ingresaste como 16.000.000-7.');
    expect(itemOf(page, first)).toContain('Plan &lt;premium&gt;');
    expect(itemOf(page, first)).toContain('Gym &lt;b&gt;&quot;Ñuñoa&quot;&lt;/b&gt; &amp; Co');
    expect(itemOf(page, first)).toMatch(/\$\s?45\.000/);
    expect(itemOf(page, first)).toContain('Vigente');
    expect(itemOf(page, second)).toContain('Plan basic');
    expect(itemOf(page, someoneElses)).toBeUndefined();
    expect(page.html).not.toContain('<b>');

    const english = await session.get(`${MANDATES}?lang=en`);
    expect(titleOf(english)).toBe('DemoBank: your mandates');
    expect(itemOf(english, first)).toContain('In force');
  });

  it('says so when the payer signed no mandate', async () => {
    const { session } = await signIn('18.000.000-3');
    expect((await session.get(MANDATES)).html).toContain('No has firmado mandatos en DemoBank.');
  });
});

describe('revoking a mandate', () => {
  it('makes the subscription DISABLED, writes the "disabled" notification, and shows the mandate revoked', async () => {
    const rut = '19.000.000-1';
    const id = await signedSubscription(rut);
    expect(await statusOf(id)).toBe('ENABLED');
    const { session } = await signIn(rut);
    const page = await session.get(MANDATES);
    expect(itemOf(page, id)).toContain(`action="${MANDATES}/${id}/revoke"`);
    const revoked = await session.post(`${MANDATES}/${id}/revoke`, { _csrf: csrfOf(page) });
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe(`${MANDATES}?revoked=${id}`);
    expect(await statusOf(id)).toBe('DISABLED');
    expect(await signingBodies(id)).toEqual([
      { subscription_id: id, status: 'enabled' },
      { subscription_id: id, status: 'disabled' },
    ]);

    const after = await session.get(revoked.location!);
    expect(after.html).toContain('Revocaste el mandato con Gym &lt;b&gt;');
    expect(itemOf(after, id)).toContain('data-state="revoked"');
    expect(itemOf(after, id)).not.toContain('/revoke');

    // The same form sent again (a double submit) revokes nothing more.
    const twice = await session.post(`${MANDATES}/${id}/revoke`, { _csrf: csrfOf(page) });
    expect(twice.status).toBe(409);
    expect(twice.html).toContain('Este mandato ya no está vigente');
    expect(await signingBodies(id)).toHaveLength(2);
  });

  it('revokes a mandate still waiting for the bank’s approval', async () => {
    const rut = '33.333.333-3';
    const id = await signedSubscription(rut);
    expect(await statusOf(id)).toBe('SIGNED');
    const { session } = await signIn(rut);
    const page = await session.get(MANDATES);
    expect(itemOf(page, id)).toContain('Pendiente de aprobación del banco');
    expect((await session.post(`${MANDATES}/${id}/revoke`, { _csrf: csrfOf(page) })).status).toBe(303);
    expect(await statusOf(id)).toBe('DISABLED');
    expect(await signingBodies(id)).toEqual([{ subscription_id: id, status: 'disabled' }]);
  });

  it('refuses a form without its token, and changes nothing', async () => {
    const rut = '20.000.000-5';
    const id = await signedSubscription(rut);
    const { session } = await signIn(rut);
    await session.get(MANDATES);
    const forged = await session.post(`${MANDATES}/${id}/revoke`, {});
    expect(forged.status).toBe(403);
    expect(forged.html).toContain('Vuelve al portal');
    expect(await statusOf(id)).toBe('ENABLED');
  });

  it("does not let a payer revoke another payer's mandate through a forged form", async () => {
    const victim = await signedSubscription('21.000.000-3');
    const { session } = await signIn('22.000.000-1');
    const page = await session.get(MANDATES);
    const forged = await session.post(`${MANDATES}/${victim}/revoke`, { _csrf: csrfOf(page) });
    expect(forged.status).toBe(404);
    expect(titleOf(forged)).toBe('Mandato no encontrado');
    const unknown = await session.post(`${MANDATES}/not-a-mandate/revoke`, { _csrf: csrfOf(page) });
    expect(unknown.status).toBe(404);
    expect(await statusOf(victim)).toBe('ENABLED');
    expect(await signingBodies(victim)).toHaveLength(1);
  });

  it('needs a session: without one the form leads to the sign-in page', async () => {
    const id = await signedSubscription('23.000.000-K');
    const session = new PayerSession(setup.server.baseUrl);
    const form = await session.get(PORTAL);
    const res = await session.post(`${MANDATES}/${id}/revoke`, { _csrf: csrfOf(form) });
    expect(res.status).toBe(303);
    expect(res.location).toBe(PORTAL);
    expect(await statusOf(id)).toBe('ENABLED');
  });
});

describe('the session’s end', () => {
  it('signs out', async () => {
    const { session } = await signIn('24.000.000-8');
    const page = await session.get(MANDATES);
    const out = await session.post(`${PORTAL}/sign-out`, { _csrf: csrfOf(page) });
    expect(out.status).toBe(303);
    expect(out.location).toBe(PORTAL);
    expect((await session.get(MANDATES)).location).toBe(PORTAL);
  });

  it("ends 15 minutes after sign-in on the installation's developer clock", async () => {
    const { session } = await signIn('25.000.000-6');
    expect((await session.get(MANDATES)).status).toBe(200);
    // A payer's session at their bank is no account's: it runs on the installation's clock.
    await moveClock(setup.server.ctx, { advance: '16m' });
    const ended = await session.get(MANDATES);
    expect(ended.status).toBe(303);
    expect(ended.location).toBe(PORTAL);
  });
});
