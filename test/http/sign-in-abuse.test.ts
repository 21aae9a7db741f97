// The dashboard's sign-in attacked as the security review did, on both databases: parallel guesses
// each counted before any password is hashed, the owner elsewhere never held back by a guesser,
// guesses spread over many emails or many addresses slowed, a flood answered "busy" while the rest
// of the server keeps answering, input that cannot be an account neither hashed nor stored, and a
// field sent twice a 400, not a 500. Clients are told apart by X-Forwarded-For behind a trusted
// proxy (TRUST_PROXY), as behind a load balancer.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { MAX_SIGN_IN_EMAIL, SIGN_IN_THROTTLES } from '../../src/domain/sign-in-throttle.js';
import { client } from '../helpers/http.js';
import { countRows } from '../helpers/payments.js';
import { csrfOf, type PageResponse, PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, useTestServer } from '../helpers/server.js';

const SIGN_IN = '/dashboard/sign-in';

let addressCount = 0;

// Every request comes through one address, the proxy's: its connections are not capped here (connection-cap.test.ts).
const setup = useTestServer({ TRUST_PROXY: '127.0.0.1', MAX_CONNECTIONS_PER_ADDRESS: '0' });

/** A client address no other test of the file uses. */
const newAddress = () => `198.51.100.${++addressCount}`;

async function signIn(credentials: { email: string; password: string }, address: string): Promise<PageResponse> {
  const session = new PayerSession(setup.server.baseUrl, { 'x-forwarded-for': address });
  const form = await session.get(SIGN_IN);
  return session.post(SIGN_IN, { _csrf: csrfOf(form), email: credentials.email, password: credentials.password });
}

const newUser = (email: string): Promise<DashboardCredentials> =>
  addDashboardUser(setup.server.ctx, setup.account.receiver_id, { email, password: CHOSEN_PASSWORD });
const statuses = (answers: PageResponse[]) => answers.map((a) => a.status);
const count = (answers: PageResponse[], status: number) => answers.filter((a) => a.status === status).length;

describe('guessing one password', () => {
  // A burst is answered over a few seconds on a loaded machine, and the first delay is one second:
  // the clock stands still during each burst, so what the test sees is the count, not the timing.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('60 parallel wrong passwords from one address: only the free ones are checked, every other waits (429 with Retry-After)', async () => {
    const user = await newUser('parallel@shop.test');
    const address = newAddress();
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => signIn({ email: user.email, password: `guess-${i}` }, address)));
    expect(count(answers, 401)).toBe(SIGN_IN_THROTTLES.pair.free);
    expect(count(answers, 429)).toBe(60 - SIGN_IN_THROTTLES.pair.free);
    for (const answer of answers.filter((a) => a.status === 429)) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('39 wrong passwords and the right one in one burst: at most the free ones are checked, whichever they are', async () => {
    const user = await newUser('burst@shop.test');
    const address = newAddress();
    const guesses = [...Array.from({ length: 39 }, (_, i) => `guess-${i}`), user.password];
    const answers = await Promise.all(guesses.map((password) => signIn({ email: user.email, password }, address)));
    expect(count(answers, 401) + count(answers, 303)).toBe(SIGN_IN_THROTTLES.pair.free);
    expect(count(answers, 429)).toBe(40 - SIGN_IN_THROTTLES.pair.free);
  });

  it("slows the guesser's address, never the owner signing in from another", async () => {
    const user = await newUser('owner@shop.test');
    const guesser = newAddress();
    for (let i = 0; i < SIGN_IN_THROTTLES.pair.free; i++) expect((await signIn({ email: user.email, password: `guess-${i}` }, guesser)).status).toBe(401);
    expect((await signIn(user, guesser)).status).toBe(429);
    expect((await signIn(user, newAddress())).status).toBe(303);
  });
});

describe('guesses spread out', () => {
  it('one address trying one password on many emails is slowed past its free failures', async () => {
    const address = newAddress();
    const answers: PageResponse[] = [];
    for (let i = 0; i <= SIGN_IN_THROTTLES.address.free; i++) answers.push(await signIn({ email: `spray-${i}@shop.test`, password: 'Summer2026!' }, address));
    expect(statuses(answers)).toEqual([...Array<number>(SIGN_IN_THROTTLES.address.free).fill(401), 429]);
  });

  it('one email guessed from many addresses is slowed too, for at most a minute, and says so', async () => {
    const user = await newUser('distributed@shop.test');
    for (let i = 0; i < SIGN_IN_THROTTLES.email.free; i++) expect((await signIn({ email: user.email, password: `guess-${i}` }, newAddress())).status).toBe(401);
    const slowed = await signIn(user, newAddress());
    expect(slowed.status).toBe(429);
    const wait = Number(slowed.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
  });

  it('the same email typed in another case is the same subject', async () => {
    const user = await newUser('case@shop.test');
    const address = newAddress();
    for (let i = 0; i < SIGN_IN_THROTTLES.pair.free; i++) await signIn({ email: i % 2 ? 'CASE@shop.test' : 'case@SHOP.test', password: `guess-${i}` }, address);
    expect((await signIn(user, address)).status).toBe(429);
  });
});

describe('input that cannot be an account', () => {
  it('an email longer than any address (2 MB, 30 times) is refused like a wrong password, and nothing is stored', async () => {
    const before = await countRows(setup.server.ctx.db, 'sign_in_throttles');
    for (let i = 0; i < 30; i++) {
      const answer = await signIn({ email: `${'a'.repeat(2 * 1024 * 1024)}${i}@shop.test`, password: 'x' }, newAddress());
      expect(answer.status).toBe(401);
      expect(answer.html.length).toBeLessThan(MAX_SIGN_IN_EMAIL * 100);
    }
    expect(await countRows(setup.server.ctx.db, 'sign_in_throttles')).toBe(before);
  });

  it('a field sent twice is a 400 naming it, on sign-in and on a payment action', async () => {
    const session = new PayerSession(setup.server.baseUrl, { 'x-forwarded-for': newAddress() });
    const form = await session.get(SIGN_IN);
    const twice = await session.post(SIGN_IN, [
      ['_csrf', csrfOf(form)],
      ['email', 'a@shop.test'],
      ['email', 'b@shop.test'],
      ['password', 'x'],
    ]);
    expect(twice.status).toBe(400);
    // The page names the field in its own language; the API's English message stays out of it.
    expect(twice.html).toContain('(email)');
    const user = await newUser('twice@shop.test');
    const owner = new PayerSession(setup.server.baseUrl, { 'x-forwarded-for': newAddress() });
    const signInForm = await owner.get(SIGN_IN);
    expect((await owner.post(SIGN_IN, { _csrf: csrfOf(signInForm), email: user.email, password: user.password })).status).toBe(303);
    const page = await owner.get('/dashboard/payments');
    const refund = await owner.post('/dashboard/payments/abcdefghijkl/refund', [
      ['_csrf', csrfOf(page)],
      ['amount', '1'],
      ['amount', '5000'],
    ]);
    expect(refund.status).toBe(400);
    expect(refund.html).toContain('(amount)');
  });
});

describe('a flood of sign-ins', () => {
  it('200 at once from 200 addresses: each is refused (401) or told the server is busy (503, Retry-After), and a payment created meanwhile is answered', async () => {
    const flood = Array.from({ length: 200 }, (_, i) => signIn({ email: `flood-${i}@shop.test`, password: 'x' }, newAddress()));
    const created = client(setup.server.baseUrl, setup.account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'during the flood' });
    const answers = await Promise.all(flood);
    expect((await created).status).toBe(200);
    expect(count(answers, 401) + count(answers, 503)).toBe(200);
    expect(count(answers, 503)).toBeGreaterThan(0);
    for (const busy of answers.filter((a) => a.status === 503)) expect(busy.headers.get('retry-after')).toBe('1');
  });
});
