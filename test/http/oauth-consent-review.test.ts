// The payer's review of the consents they gave (ASVS 10.7.3), page by page over HTTP: the
// institution sign-in of the flow, the list of one user's live consents, a withdrawal that revokes
// the consent's tokens (a bearer call fails at once, another client's token still works) and is
// audited, a consent whose tokens a rotation of the client's secret ended shown no more, another payer who sees none of them, and forged or foreign requests that change nothing.
// Opening a review needs no credential and writes a row: a thousand opened from one address write
// a few, the rest wait (429), and another address is not held back. Clients are told apart by
// X-Forwarded-For behind a trusted proxy (TRUST_PROXY), as behind a load balancer.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { SIGN_IN_THROTTLES } from '../../src/domain/sign-in-throttle.js';
import { call, client } from '../helpers/http.js';
import { authorizeParams, basicAuth, csrfOf, FORM, formPost, PageClient, redirectParams, registerRedirectUris } from '../helpers/oauth.js';
import { countRows } from '../helpers/payments.js';
import { type TestAccount, useTestServer } from '../helpers/server.js';

const CALLBACK = 'https://client.example/callback';
const PAYER = '11.111.111-1';
const OTHER_PAYER = '22.222.222-2';

const setup = useTestServer({ TRUST_PROXY: '127.0.0.1' });
let second: TestAccount;
const tokens = new Map<TestAccount, string>();
const payments = new Map<TestAccount, string>();

async function consentAndToken(account: TestAccount): Promise<string> {
  const done = await new PageClient(setup.server.baseUrl).runFlow(authorizeParams(account, CALLBACK), { rut: PAYER });
  const code = redirectParams(done.location).code!;
  const res = await formPost(setup.server.baseUrl, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, basicAuth(account));
  expect(res.status).toBe(200);
  return res.body.access_token;
}

beforeAll(async () => {
  second = await setup.server.account({ name: 'Otra tienda', users: ['owner-2@example.com'] });
  for (const account of [setup.account, second]) {
    await registerRedirectUris(setup.server, account, [CALLBACK]);
    payments.set(
      account,
      (await client(setup.server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Review' })).body.payment_id,
    );
    tokens.set(account, await consentAndToken(account));
  }
});

const bearerStatus = async (account: TestAccount) =>
  (await call(setup.server.baseUrl, 'GET', `/v3/payments/${payments.get(account)}`, { headers: { authorization: `Bearer ${tokens.get(account)}` } })).status;

/** Opens a review at DemoBank in `browser` and signs in: the review's path. */
async function signedInReview(browser: PageClient, rut: string): Promise<string> {
  const choice = await browser.get('/oauth2/consents');
  expect(choice.status).toBe(200);
  const opened = await browser.post('/oauth2/consents', { _csrf: csrfOf(choice.text), institution_id: 'Bawdf' });
  expect(opened.status).toBe(303);
  const review = opened.location!;
  expect(review).toMatch(/^\/oauth2\/consents\/[A-Za-z0-9_-]{24}$/);
  const login = await browser.get(review);
  expect(login.text).toContain('name="rut"');
  const signedIn = await browser.post(`${review}/login`, { _csrf: csrfOf(login.text), rut, password: '1234' });
  expect(signedIn.status).toBe(303);
  expect(signedIn.location).toBe(review);
  return review;
}

function consentIdOf(page: string, clientName: string): string {
  const match = new RegExp(`<h2>${clientName}</h2>[\\s\\S]*?name="consent_id" value="([^"]+)"`).exec(page);
  if (!match) throw new Error(`no consent of ${clientName} in page:\n${page}`);
  return match[1]!;
}

const auditRecords = () =>
  setup.server.ctx.db
    .selectFrom('audit_log')
    .select(['actor_kind', 'receiver_id', 'target', 'outcome'])
    .where('action', '=', 'oauth.consent.withdraw')
    .execute();

describe('consent review', () => {
  it('shows the payer both consents, and a withdrawal revokes that client’s token only', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const choice = await browser.get('/oauth2/consents');
    expect(choice.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(choice.headers.get('cache-control')).toBe('no-store');
    expect(choice.text).toContain('<option value="Bawdf">');
    const review = await signedInReview(browser, PAYER);
    const list = await browser.get(review);
    expect(list.status).toBe(200);
    expect(list.text).toContain(PAYER);
    expect(list.text).toContain('<h2>Test store</h2>');
    expect(list.text).toContain('<h2>Otra tienda</h2>');
    expect(list.text).toContain('openid, api');
    expect(await bearerStatus(setup.account)).toBe(200);

    const withdrawn = await browser.post(`${review}/withdraw`, { _csrf: csrfOf(list.text), consent_id: consentIdOf(list.text, 'Test store') });
    expect(withdrawn.status).toBe(303);
    expect(withdrawn.location).toBe(review);
    const after = await browser.get(review);
    expect(after.text).not.toContain('<h2>Test store</h2>');
    expect(after.text).toContain('<h2>Otra tienda</h2>');
    expect(await bearerStatus(setup.account)).toBe(401);
    expect(await bearerStatus(second)).toBe(200);
    expect(await auditRecords()).toEqual([{ actor_kind: 'payer', receiver_id: setup.account.receiver_id, target: expect.any(String), outcome: 'ok' }]);
  });

  it('shows another payer at the same institution none of them, and will not withdraw them for that payer', async () => {
    const owner = new PageClient(setup.server.baseUrl);
    const ownList = await owner.get(await signedInReview(owner, PAYER));
    const consentId = consentIdOf(ownList.text, 'Otra tienda');

    const stranger = new PageClient(setup.server.baseUrl);
    const review = await signedInReview(stranger, OTHER_PAYER);
    const list = await stranger.get(review);
    expect(list.text).toContain(OTHER_PAYER);
    expect(list.text).not.toContain('Otra tienda');
    expect(list.text).not.toContain('name="consent_id"');
    // A well-formed request of the stranger's own review, with a CSRF token of that browser.
    const csrf = csrfOf((await stranger.get('/oauth2/consents')).text);
    const refused = await stranger.post(`${review}/withdraw`, { _csrf: csrf, consent_id: consentId });
    expect(refused.status).toBe(404);
    expect(await bearerStatus(second)).toBe(200);
  });

  it('no longer shows a consent whose tokens ended with a rotation of its client’s secret', async () => {
    const rotated = await setup.server.account({ name: 'Tienda rotada', users: ['owner-3@example.com'] });
    await registerRedirectUris(setup.server, rotated, [CALLBACK]);
    const token = await consentAndToken(rotated);
    const browser = new PageClient(setup.server.baseUrl);
    const review = await signedInReview(browser, PAYER);
    expect((await browser.get(review)).text).toContain('<h2>Tienda rotada</h2>');
    await updateMerchant(setup.server.ctx, rotated.receiver_id, { rotateSecret: true });
    const bearer = await call(setup.server.baseUrl, 'GET', '/v3/banks', { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(401);
    const after = await browser.get(review);
    expect(after.text).not.toContain('Tienda rotada');
    expect(after.text).toContain('<h2>Otra tienda</h2>');
  });

  it('refuses a withdrawal without the CSRF token, or from another browser, and changes nothing', async () => {
    const owner = new PageClient(setup.server.baseUrl);
    const review = await signedInReview(owner, PAYER);
    const list = await owner.get(review);
    const consentId = consentIdOf(list.text, 'Otra tienda');
    const auditsBefore = (await auditRecords()).length;

    const forged = await owner.post(`${review}/withdraw`, { consent_id: consentId });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('Formulario no válido');

    // Another browser that learnt the review's address, with a CSRF token of its own.
    const other = new PageClient(setup.server.baseUrl);
    const otherChoice = await other.get('/oauth2/consents');
    const foreign = await other.post(`${review}/withdraw`, { _csrf: csrfOf(otherChoice.text), consent_id: consentId });
    expect(foreign.status).toBe(403);
    expect(foreign.text).not.toContain(PAYER);

    expect(await bearerStatus(second)).toBe(200);
    expect((await owner.get(review)).text).toContain('<h2>Otra tienda</h2>');
    expect((await auditRecords()).length).toBe(auditsBefore);
  });

  it('ends the review when the sign-in at the institution fails, as the flow does', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const choice = await browser.get('/oauth2/consents');
    const review = (await browser.post('/oauth2/consents', { _csrf: csrfOf(choice.text), institution_id: 'Bawdf' })).location!;
    const login = await browser.get(review);
    const failed = await browser.post(`${review}/login`, { _csrf: csrfOf(login.text), rut: PAYER, password: 'E003' });
    expect(failed.status).toBe(409);
    expect(failed.text).toContain('E003');
    const again = await browser.post(`${review}/login`, { _csrf: csrfOf(login.text), rut: PAYER, password: '1234' });
    expect(again.status).toBe(409);
    expect(again.text).not.toContain('name="consent_id"');
  });

  it('answers bad input with a 400 naming the field', async () => {
    const browser = new PageClient(setup.server.baseUrl);
    const choice = await browser.get('/oauth2/consents');
    const unknown = await browser.post('/oauth2/consents', { _csrf: csrfOf(choice.text), institution_id: 'Nope1' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('institution_id');
    const review = await signedInReview(browser, PAYER);
    const list = await browser.get(review);
    const missing = await browser.post(`${review}/withdraw`, { _csrf: csrfOf(list.text) });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('consent_id');
    expect((await browser.get('/oauth2/consents/not-a-review')).status).toBe(404);
  });
});

describe('a flood of reviews', () => {
  // A burst takes seconds on a loaded machine, and the first delay is one second: the clock stands
  // still during it, so what the test sees is the count, not the timing.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  interface Answer {
    status: number;
    retryAfter: string | null;
    text: string;
  }

  /** Opens `count` reviews at DemoBank from `address` with one browser's form, 25 at a time. */
  async function openReviews(address: string, count: number): Promise<Answer[]> {
    const choice = await new PageClient(setup.server.baseUrl).get('/oauth2/consents');
    const cookie = choice.headers
      .getSetCookie()
      .map((set) => set.split(';')[0])
      .join('; ');
    const body = new URLSearchParams({ _csrf: csrfOf(choice.text), institution_id: 'Bawdf' }).toString();
    const open = async (): Promise<Answer> => {
      const res = await fetch(`${setup.server.baseUrl}/oauth2/consents`, {
        method: 'POST',
        headers: { cookie, 'content-type': FORM, 'x-forwarded-for': address },
        body,
        redirect: 'manual',
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
    };
    const answers: Answer[] = [];
    for (let sent = 0; sent < count; sent += 25) answers.push(...(await Promise.all(Array.from({ length: Math.min(25, count - sent) }, open))));
    return answers;
  }

  it('1,000 opened from one address: the free ones written, every other a 429 with Retry-After that writes nothing', async () => {
    const free = SIGN_IN_THROTTLES['consent-review'].free;
    const before = await countRows(setup.server.ctx.db, 'oauth_consent_reviews');
    const answers = await openReviews('198.51.100.7', 1_000);
    expect(answers.filter((a) => a.status === 303)).toHaveLength(free);
    const waiting = answers.filter((a) => a.status === 429);
    expect(waiting).toHaveLength(1_000 - free);
    expect(Number(waiting[0]!.retryAfter)).toBeGreaterThan(0);
    expect(waiting[0]!.text).toContain('Demasiadas revisiones');
    expect(await countRows(setup.server.ctx.db, 'oauth_consent_reviews')).toBe(before + free);

    // Another address is not held back; this one may open another once its wait is over.
    expect((await openReviews('198.51.100.8', 1)).map((a) => a.status)).toEqual([303]);
    vi.setSystemTime(Date.now() + Number(waiting.at(-1)!.retryAfter) * 1000);
    expect((await openReviews('198.51.100.7', 2)).map((a) => a.status).sort()).toEqual([303, 429]);
    expect(await countRows(setup.server.ctx.db, 'oauth_consent_reviews')).toBe(before + free + 2);
  }, 120_000);
});
