// A dashboard user's password and sessions over their life: a password they choose passes the
// password rules (not a common one, no word of Quipu, their email or their account); a generated
// one expires and, before that, opens nothing but the page that replaces it; a hash made at a lower
// cost (the developer-mode demo user's is made at the least) is made again at sign-in; a disabled user is answered as a wrong password is and loses their
// sessions at once; and a user sees their own sessions and ends one or all the others with their
// password given again, audited.
import { describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials, insertDashboardUser, passwordAndHash } from '../../src/app/add-dashboard-user.js';
import { setDashboardUserDisabled } from '../../src/app/dashboard-user-access.js';
import { resetDashboardPassword } from '../../src/app/reset-dashboard-password.js';
import { INITIAL_PASSWORD_MS } from '../../src/domain/dashboard-session.js';
import { hashPassword, MIN_HASH_COST } from '../../src/domain/password-hash.js';
import { csrfOf, type PageResponse, PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, useTestServer } from '../helpers/server.js';

const SIGN_IN = '/dashboard/sign-in';
const SETTINGS = '/dashboard/settings';
const SESSIONS = '/dashboard/sessions';

let users = 0;

const setup = useTestServer({}, { name: 'Teteras Andinas' });

const newUser = (password?: string) =>
  addDashboardUser(setup.server.ctx, setup.account.receiver_id, { email: `rojas.ana${++users}@teteras.test`, ...(password ? { password } : {}) });

async function signIn(credentials: DashboardCredentials, userAgent = 'TestBrowser/1.0'): Promise<{ session: PayerSession; answer: PageResponse }> {
  const session = new PayerSession(setup.server.baseUrl, { 'user-agent': userAgent });
  const answer = await session.post(SIGN_IN, { _csrf: csrfOf(await session.get(SIGN_IN)), email: credentials.email, password: credentials.password });
  return { session, answer };
}

async function post(session: PayerSession, page: string, action: string, fields: Record<string, string>): Promise<PageResponse> {
  return session.post(action, { _csrf: csrfOf(await session.get(page)), ...fields });
}

const userRow = (email: string) => setup.server.ctx.db.selectFrom('dashboard_users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
const sessionCount = async (email: string) =>
  (
    await setup.server.ctx.db
      .selectFrom('dashboard_sessions as s')
      .innerJoin('dashboard_users as u', 'u.user_id', 's.user_id')
      .select('s.token_hash')
      .where('u.email', '=', email)
      .execute()
  ).length;

describe('a password the user chooses', () => {
  it('is refused when common, built on a context word, or the current one again, and nothing changes', async () => {
    const user = await newUser(CHOSEN_PASSWORD);
    const { session } = await signIn(user);
    const change = (next: string) => post(session, SETTINGS, `${SETTINGS}/password`, { current: user.password, next });
    const refusals: [string, string][] = [
      ['password1', 'una de las más usadas'],
      ['Qu1pu-2024-larch', 'no puede contener Quipu'],
      ['Rojas-Sunset-4411', 'no puede contener Quipu, tu correo ni el nombre de la cuenta'],
      ['Andinas-Kettle-58', 'no puede contener Quipu, tu correo ni el nombre de la cuenta'],
      [CHOSEN_PASSWORD, 'distinta de la actual'],
      ['short', '8 caracteres o más'],
    ];
    const before = (await userRow(user.email)).password_hash;
    for (const [next, message] of refusals) {
      const answer = await change(next);
      expect(answer.status, next).toBe(400);
      expect(answer.html, next).toContain(message);
    }
    expect((await userRow(user.email)).password_hash).toBe(before);
    expect((await change('Heron-Basalt-Cedar-31')).status).toBe(303);
  });

  it('is checked at account creation too: a common password given to addDashboardUser is refused, the user not written', async () => {
    await expect(addDashboardUser(setup.server.ctx, setup.account.receiver_id, { email: 'weak@teteras.test', password: 'iloveyou' })).rejects.toThrow(
      'password: is one of the most common passwords',
    );
    expect(await setup.server.ctx.db.selectFrom('dashboard_users').select('email').where('email', '=', 'weak@teteras.test').execute()).toEqual([]);
  });
});

describe('a generated password', () => {
  it('signs in, but opens only the page that replaces it until it is replaced', async () => {
    const before = Date.now();
    const user = await newUser();
    const expiresAt = Number((await userRow(user.email)).password_expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + INITIAL_PASSWORD_MS);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + INITIAL_PASSWORD_MS);
    const { session, answer } = await signIn(user);
    expect(answer.status).toBe(303);
    for (const path of ['/dashboard', '/dashboard/payments', SESSIONS, '/dashboard/events']) expect((await session.get(path)).location, path).toBe(SETTINGS);
    const page = await session.get(SETTINGS);
    expect(page.status).toBe(200);
    expect(page.html).toContain('id="password-due"');
    expect(page.html).not.toContain('id="reveal"');
    expect(page.html).not.toContain('href="/dashboard/payments"');
    // A form of another section posted anyway is turned back, changing nothing.
    const reveal = await session.post(`${SETTINGS}/reveal`, { _csrf: csrfOf(page) });
    expect(reveal.location).toBe(SETTINGS);
    expect(reveal.html).not.toContain(setup.account.secret);

    const changed = await post(session, SETTINGS, `${SETTINGS}/password`, { current: user.password, next: 'Heron-Basalt-Cedar-31' });
    expect(changed.status).toBe(303);
    expect((await userRow(user.email)).password_expires_at).toBeNull();
    expect((await session.get('/dashboard')).status).toBe(200);
  });

  it('no longer signs in once expired, said only to whoever gives it right; a reset gives a new one', async () => {
    const user = await newUser();
    await setup.server.ctx.db
      .updateTable('dashboard_users')
      .set({ password_expires_at: Date.now() - 1 })
      .where('email', '=', user.email)
      .execute();
    const expired = await signIn(user);
    expect(expired.answer.status).toBe(403);
    expect(expired.answer.html).toContain('contraseña inicial venció');
    expect((await expired.session.get('/dashboard')).location).toBe(SIGN_IN);
    const wrong = await signIn({ email: user.email, password: 'not-the-password' });
    expect(wrong.answer.status).toBe(401);

    const reset = await resetDashboardPassword(setup.server.ctx, user.email);
    expect(Number((await userRow(user.email)).password_expires_at)).toBeGreaterThan(Date.now());
    const again = await signIn(reset);
    expect(again.answer.status).toBe(303);
    expect((await again.session.get('/dashboard')).location).toBe(SETTINGS);
  });
});

describe('password hashes', () => {
  it('made at a lower cost than the installation’s are made again at the next sign-in', async () => {
    const user = await newUser(CHOSEN_PASSWORD);
    const cost = setup.server.config.passwordHashCost;
    const weaker = await hashPassword(user.password, new Uint8Array(16).fill(3), cost - 1);
    await setup.server.ctx.db.updateTable('dashboard_users').set({ password_hash: weaker }).where('email', '=', user.email).execute();
    expect((await signIn(user)).answer.status).toBe(303);
    const stored = (await userRow(user.email)).password_hash;
    expect(stored).toContain(`$scrypt$ln=${cost},r=8,p=1$`);
    expect(stored).not.toBe(weaker);
    expect((await signIn(user)).answer.status).toBe(303);
  });

  it("the developer-mode demo user's is made at the least cost (its password is printed at start), then at the installation's at its first sign-in", async () => {
    const { ctx } = setup.server;
    const email = `demo${++users}@teteras.test`;
    const password = await passwordAndHash(ctx, { context: { email, accountName: 'Teteras Andinas' }, developerDemo: true });
    expect(password.hash).toContain(`$scrypt$ln=${MIN_HASH_COST},r=8,p=1$`);
    expect(password.expiresAt).toBeNull();
    await insertDashboardUser(ctx, ctx.db, setup.account.receiver_id, email, password);
    expect((await signIn({ email, password: password.password })).answer.status).toBe(303);
    expect((await userRow(email)).password_hash).toContain(`$scrypt$ln=${setup.server.config.passwordHashCost},r=8,p=1$`);
    expect((await signIn({ email, password: password.password })).answer.status).toBe(303);
  });
});

describe('a disabled user', () => {
  it('loses every session at once and is answered as a wrong password is, until enabled', async () => {
    const user = await newUser(CHOSEN_PASSWORD);
    const { session } = await signIn(user);
    expect((await session.get('/dashboard')).status).toBe(200);
    expect(await setDashboardUserDisabled(setup.server.ctx, user.email, true)).toEqual({ email: user.email, disabled: true, sessions_ended: 1 });
    expect((await session.get('/dashboard')).location).toBe(SIGN_IN);
    expect(await sessionCount(user.email)).toBe(0);
    const refused = await signIn(user);
    const wrong = await signIn({ email: user.email, password: 'not-the-password' });
    expect(refused.answer.status).toBe(401);
    expect(refused.answer.html).toBe(wrong.answer.html.replace(csrfOf(wrong.answer), csrfOf(refused.answer)));
    expect(await sessionCount(user.email)).toBe(0);

    await setDashboardUserDisabled(setup.server.ctx, user.email, false);
    expect((await signIn(user)).answer.status).toBe(303);
  });
});

describe('the sessions page', () => {
  it("lists the user's own live sessions with when and where, and no one else's", async () => {
    const user = await newUser(CHOSEN_PASSWORD);
    const other = await newUser(CHOSEN_PASSWORD);
    const { session: laptop } = await signIn(user, 'Laptop/1.0');
    await signIn(user, 'Phone/2.0');
    await signIn(other, 'Stranger/9.9');
    const page = await laptop.get(SESSIONS);
    expect(page.status).toBe(200);
    expect(page.html.match(/<tr data-session=/g)).toHaveLength(2);
    expect(page.html).toContain('Laptop/1.0');
    expect(page.html).toContain('Phone/2.0');
    expect(page.html).not.toContain('Stranger/9.9');
    expect(page.html).toContain('127.0.0.1');
    expect(page.html).toMatch(/<tr data-session="[0-9a-f]{32}" class="current">.*Laptop\/1\.0.*esta sesión/);
    // The token's hash names no session on the page.
    for (const row of await setup.server.ctx.db.selectFrom('dashboard_sessions').select('token_hash').execute())
      expect(page.html).not.toContain(row.token_hash);
  });

  it('ends one other session, or all the others, only with the password, and audits each try', async () => {
    const user = await newUser(CHOSEN_PASSWORD);
    const { session: laptop } = await signIn(user, 'Laptop/1.0');
    const { session: phone } = await signIn(user, 'Phone/2.0');
    const { session: tablet } = await signIn(user, 'Tablet/3.0');
    const idOf = (html: string, agent: string) => new RegExp(`<tr data-session="([0-9a-f]{32})"[^>]*>(?:(?!</tr>).)*${agent}`).exec(html)![1]!;
    const phoneId = idOf((await laptop.get(SESSIONS)).html, 'Phone/2.0');
    const seqBefore = Number(
      (
        await setup.server.ctx.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .executeTakeFirst()
      )?.seq ?? 0,
    );

    const wrong = await post(laptop, SESSIONS, `${SESSIONS}/end`, { session: phoneId, password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('La contraseña no es correcta. No se cerró ninguna sesión.');
    expect((await phone.get('/dashboard')).status).toBe(200);

    const one = await post(laptop, SESSIONS, `${SESSIONS}/end`, { session: phoneId, password: user.password });
    expect(one.status).toBe(200);
    expect(one.html).toContain('Se cerró 1 sesión.');
    expect((await phone.get('/dashboard')).location).toBe(SIGN_IN);
    expect((await tablet.get('/dashboard')).status).toBe(200);
    expect((await post(laptop, SESSIONS, `${SESSIONS}/end`, { session: phoneId, password: user.password })).status).toBe(404);

    const others = await post(laptop, SESSIONS, `${SESSIONS}/end`, { session: 'others', password: user.password });
    expect(others.html).toContain('Se cerró 1 sesión.');
    expect((await tablet.get('/dashboard')).location).toBe(SIGN_IN);
    expect((await laptop.get('/dashboard')).status).toBe(200);
    expect(await sessionCount(user.email)).toBe(1);

    const mine = async () =>
      (
        await setup.server.ctx.db
          .selectFrom('audit_log')
          .select(['action', 'outcome', 'target'])
          .where('seq', '>', seqBefore)
          .where('actor', '=', user.email)
          .where('action', '=', 'session.end')
          .orderBy('seq')
          .execute()
      ).map((r) => r.outcome);
    await expect.poll(mine, { timeout: 5_000 }).toEqual(['refused', 'ok', 'refused', 'ok']);
  });
});
