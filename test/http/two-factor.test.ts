// Two-factor sign-in to the dashboard: after the right password an enrolled user holds a halfway
// session that opens no page until the authenticator's code (or a recovery code) is given; a code
// is good once, guesses are slowed per user, the halfway session ends after five minutes, and the
// full session comes under a new token. An installation may require a second factor of everyone;
// enrolment and reset end every session of the user.
import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { enrolTwoFactor, resetTwoFactor, type TwoFactorEnrolment } from '../../src/app/two-factor-enrolment.js';
import { SIGN_IN_THROTTLES } from '../../src/domain/sign-in-throttle.js';
import { csrfOf, type PageResponse, PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const SIGN_IN = '/dashboard/sign-in';
const CODE = '/dashboard/sign-in/code';

let server: TestServer;
let account: TestAccount;
let users = 0;

beforeAll(async () => {
  server = await startTestServer();
  account = await server.account();
});
afterAll(async () => server?.close());

async function enrolled(): Promise<{ user: DashboardCredentials; enrolment: TwoFactorEnrolment }> {
  const user = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: `two-factor-${++users}@shop.test` });
  return { user, enrolment: await enrolTwoFactor(server.ctx, user.email) };
}

/** The authenticator's code `stepsAhead` 30-second steps from now. */
const codeOf = (enrolment: TwoFactorEnrolment, stepsAhead = 0) =>
  new TOTP({ secret: Secret.fromBase32(enrolment.secret) }).generate({ timestamp: Date.now() + stepsAhead * 30_000 });

async function withPassword(user: DashboardCredentials, target = server): Promise<{ session: PayerSession; answer: PageResponse }> {
  const session = new PayerSession(target.baseUrl);
  const answer = await session.post(SIGN_IN, { _csrf: csrfOf(await session.get(SIGN_IN)), email: user.email, password: user.password });
  return { session, answer };
}

async function giveCode(session: PayerSession, code: string): Promise<PageResponse> {
  return session.post(CODE, { _csrf: csrfOf(await session.get(SIGN_IN)), code });
}

describe('an enrolled user', () => {
  it('is asked for the code after the password, and the halfway session opens no page', async () => {
    const { user } = await enrolled();
    const { session, answer } = await withPassword(user);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(CODE);
    const page = await session.get(CODE);
    expect(page.status).toBe(200);
    expect(page.html).toContain('autocomplete="one-time-code"');
    for (const path of ['/dashboard', '/dashboard/payments', '/dashboard/settings']) expect((await session.get(path)).location).toBe(SIGN_IN);
  });

  it("signs in with the authenticator's code, under a new session token", async () => {
    const { user, enrolment } = await enrolled();
    const { session } = await withPassword(user);
    const halfway = session.cookies.get('quipu_session');
    const wrong = await giveCode(session, codeOf(enrolment) === '000000' ? '111111' : '000000');
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('El código no es correcto.');
    const right = await giveCode(session, codeOf(enrolment));
    expect(right.status).toBe(303);
    expect(right.location).toBe('/dashboard');
    expect(session.cookies.get('quipu_session')).not.toBe(halfway);
    expect((await session.get('/dashboard')).status).toBe(200);
  });

  it('takes a code once: the same code at the next sign-in is refused, a newer one is taken', async () => {
    const { user, enrolment } = await enrolled();
    const code = codeOf(enrolment);
    expect((await giveCode((await withPassword(user)).session, code)).status).toBe(303);
    const again = (await withPassword(user)).session;
    expect((await giveCode(again, code)).status).toBe(401);
    expect((await giveCode(again, codeOf(enrolment, 1))).status).toBe(303);
  });

  it('signs in with a recovery code, once, however it is typed', async () => {
    const { user, enrolment } = await enrolled();
    expect(enrolment.recovery_codes).toHaveLength(10);
    expect(new Set(enrolment.recovery_codes).size).toBe(10);
    // 24 base32 symbols (120 bits, past ASVS 6.5.2's 112) in groups of six, stored only as hashes
    // salted with the user: no stored value is the code's plain SHA-256, nor another user's.
    for (const code of enrolment.recovery_codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{6}(?:-[0-9a-hjkmnp-tv-z]{6}){3}$/);
    const stored = (
      await server.ctx.db
        .selectFrom('dashboard_recovery_codes as c')
        .innerJoin('dashboard_users as u', 'u.user_id', 'c.user_id')
        .select('c.code_hash')
        .where('u.email', '=', user.email)
        .execute()
    ).map((r) => r.code_hash);
    expect(stored).toHaveLength(10);
    const plainHashes = enrolment.recovery_codes.map((code) => createHash('sha256').update(code.replace(/-/g, '')).digest('hex'));
    expect(stored.filter((h) => plainHashes.includes(h))).toEqual([]);
    const [first] = enrolment.recovery_codes;
    expect((await giveCode((await withPassword(user)).session, ` ${first!.toUpperCase()} `)).status).toBe(303);
    expect((await giveCode((await withPassword(user)).session, first!)).status).toBe(401);
    expect((await giveCode((await withPassword(user)).session, enrolment.recovery_codes[1]!.replace('-', ''))).status).toBe(303);
  });

  it('is slowed after five wrong codes, right code or not, from any session', async () => {
    const { user, enrolment } = await enrolled();
    const free = SIGN_IN_THROTTLES['second-factor'].free;
    const sessions = await Promise.all(Array.from({ length: 3 }, async () => (await withPassword(user)).session));
    const answers = await Promise.all(Array.from({ length: free + 3 }, (_, i) => giveCode(sessions[i % 3]!, String(100000 + i))));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array.from({ length: free }, () => 401), 429, 429, 429]);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(3);
    const right = await giveCode(sessions[0]!, codeOf(enrolment));
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('must give the code within five minutes of the password', async () => {
    const { user, enrolment } = await enrolled();
    const { session } = await withPassword(user);
    await server.ctx.db
      .updateTable('dashboard_sessions')
      .set((eb) => ({ created_at: eb('created_at', '-', 5 * 60_000) }))
      .where('second_factor_due', '=', 1)
      .execute();
    expect((await session.get(CODE)).location).toBe(SIGN_IN);
    const late = await giveCode(session, codeOf(enrolment));
    expect(late.status).toBe(303);
    expect(late.location).toBe(SIGN_IN);
  });

  it('enrolment and reset end every session of the user; after a reset the password alone signs in', async () => {
    const { user, enrolment } = await enrolled();
    const { session } = await withPassword(user);
    expect((await giveCode(session, codeOf(enrolment))).status).toBe(303);
    await resetTwoFactor(server.ctx, user.email);
    expect((await session.get('/dashboard')).location).toBe(SIGN_IN);
    const plain = await withPassword(user);
    expect(plain.answer.location).toBe('/dashboard');
    await enrolTwoFactor(server.ctx, user.email);
    expect((await plain.session.get('/dashboard')).location).toBe(SIGN_IN);
  });
});

describe('SANDBOX=false', () => {
  let production: TestServer;
  beforeAll(async () => {
    production = await startTestServer({ SANDBOX: 'false' });
  });
  afterAll(async () => production?.close());

  it('requires a second factor of every user without being told to', async () => {
    const shop = await production.account({ developer: false });
    const plain = await addDashboardUser(production.ctx, shop.receiver_id, { email: 'plain@production.test', password: CHOSEN_PASSWORD });
    const refused = await withPassword(plain, production);
    expect(refused.answer.status).toBe(403);
    expect(refused.answer.html).toContain('exige un segundo factor');
    const enrolment = await enrolTwoFactor(production.ctx, plain.email);
    const { session } = await withPassword(plain, production);
    expect((await giveCode(session, codeOf(enrolment))).location).toBe('/dashboard');
  });
});

describe('DASHBOARD_TWO_FACTOR=required', () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer({ DASHBOARD_TWO_FACTOR: 'required' });
  });
  afterAll(async () => strict?.close());

  it('lets no user in without a second factor, and the enrolled ones with it', async () => {
    const shop = await strict.account();
    const plain = await addDashboardUser(strict.ctx, shop.receiver_id, { password: CHOSEN_PASSWORD, email: 'plain@strict.test' });
    const refused = await withPassword(plain, strict);
    expect(refused.answer.status).toBe(403);
    expect(refused.answer.html).toContain('exige un segundo factor');
    expect((await refused.session.get('/dashboard')).location).toBe(SIGN_IN);

    const enrolment = await enrolTwoFactor(strict.ctx, plain.email);
    const { session, answer } = await withPassword(plain, strict);
    expect(answer.location).toBe(CODE);
    expect((await giveCode(session, codeOf(enrolment))).location).toBe('/dashboard');
  });
});
