// Webhook debugging from the dashboard, over HTTP on SQLite and PostgreSQL: Settings sends a test
// event to the saved notify_url (a signed event of kind receiver.test, attempted once, its outcome
// on the page); an event is sent once to a URL the user types, signed the same way, after a
// confirmation page, and logged as one more attempt marked with that URL, the event's own status
// untouched. URLs follow notify_url's rules (a developer-mode account reaches no link-local
// address, 169.254.169.254 among them); a viewer may do neither; another account's event is not
// found; an email has no URL to send elsewhere (409).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import type { DashboardRole } from '../../src/domain/dashboard-roles.js';
import { SIGNATURE_HEADER } from '../../src/domain/notification-signature.js';
import { client } from '../helpers/http.js';
import { signedBy, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { dashboardSession, postForm } from '../helpers/dashboard-session.js';
import type { PayerSession } from '../helpers/payer-session.js';
import { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const SETTINGS = '/dashboard/settings';

let server: TestServer;
let account: TestAccount;
let hooks: Receiver;
let elsewhere: Receiver;
const users = {} as Record<DashboardRole, DashboardCredentials>;

beforeAll(async () => {
  server = await startTestServer();
  hooks = await startReceiver();
  elsewhere = await startReceiver();
  account = await server.account({ name: 'Hooks', notifyUrl: hooks.url });
  for (const role of ['developer', 'viewer'] as const)
    users[role] = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: `${role}@hooks.test`, role });
});
afterAll(async () => {
  await hooks?.close();
  await elsewhere?.close();
  await server?.close();
});

const signedIn = (credentials: DashboardCredentials) => dashboardSession(server.baseUrl, credentials);
const post = postForm;

const api = () => client(server.baseUrl, account.api_key);
const eventOf = async (id: string) => (await api().get(`/quipu/v1/events/${id}`)).body;
const attemptsOf = async (id: string) => server.ctx.db.selectFrom('message_attempts').selectAll().where('message_id', '=', id).execute();

/** The event Settings' test sends, by the developer: its id, from the page's redirect. */
async function testEvent(session: PayerSession): Promise<string> {
  const sent = await post(session, SETTINGS, `${SETTINGS}/test-event`);
  expect(sent.status).toBe(303);
  return new URL(sent.location!, server.baseUrl).searchParams.get('tested')!;
}

describe('the test event of Settings', { timeout: 60_000 }, () => {
  it('sends a signed receiver.test event to the saved notify_url once and says how it went', async () => {
    const session = await signedIn(users.developer);
    const settings = await session.get(`${SETTINGS}?lang=en`);
    expect(settings.html).toContain('id="test-event"');
    const before = hooks.requests.length;
    const id = await testEvent(session);
    expect(hooks.requests.length).toBe(before + 1);
    const received = hooks.requests.at(-1)!;
    expect(signedBy(account.secret, received)).toBe(true);
    expect(JSON.parse(received.body)).toEqual({ event: 'test', receiver_id: account.receiver_id, sent_at: expect.any(String) });

    const page = await session.get(`${SETTINGS}?tested=${id}&lang=en`);
    expect(page.html).toContain(`Test event sent to ${hooks.url}: delivered (HTTP 200,`);
    expect(page.html).toContain(`href="/dashboard/events/${id}"`);
    const event = await eventOf(id);
    expect(event).toMatchObject({ kind: 'receiver.test', subject_type: 'receiver', status: 'delivered', attempts: 1, destination: hooks.url });
    // What the events API shows is what was sent.
    expect(event.attempt_log[0].headers[SIGNATURE_HEADER]).toBe(received.headers[SIGNATURE_HEADER]);
    expect(event.attempt_log[0].sent_to).toBe(hooks.url);
  });

  it('is attempted once: a failure is the outcome, with no retry to come', async () => {
    const session = await signedIn(users.developer);
    hooks.answer(() => ({ status: 500, body: 'boom' }));
    try {
      const id = await testEvent(session);
      const page = await session.get(`${SETTINGS}?tested=${id}&lang=en`);
      expect(page.html).toContain(`Test event sent to ${hooks.url}: failed (HTTP 500,`);
      expect(await eventOf(id)).toMatchObject({ status: 'exhausted', attempts: 1, next_attempt_at: null });
    } finally {
      hooks.answer(() => ({ status: 200, body: 'ok' }));
    }
  });

  it('is neither offered to nor run for a viewer', async () => {
    const session = await signedIn(users.viewer);
    expect((await session.get(SETTINGS)).html).not.toContain('id="test-event"');
    const before = hooks.requests.length;
    const refused = await post(session, SETTINGS, `${SETTINGS}/test-event`);
    expect(refused.status).toBe(403);
    expect(hooks.requests.length).toBe(before);
  });
});

describe('sending an event to another URL', { timeout: 60_000 }, () => {
  it('asks first, then sends the same signed body once, logged as an attempt marked with that URL', async () => {
    const session = await signedIn(users.developer);
    const id = await testEvent(session);
    const page = `/dashboard/events/${id}`;
    const confirm = await session.get(`${page}/send-to?${new URLSearchParams({ url: elsewhere.url, lang: 'en' })}`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain(`Send this event once to ${elsewhere.url}?`);
    expect(elsewhere.requests).toHaveLength(0);

    const sent = await post(session, `${page}/send-to?url=${encodeURIComponent(elsewhere.url)}`, `${page}/send-to`, { url: elsewhere.url });
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`${page}?sent=2`);
    expect(elsewhere.requests).toHaveLength(1);
    const received = elsewhere.requests[0]!;
    expect(received.body).toBe(hooks.requests.at(-1)!.body);
    expect(signedBy(account.secret, received)).toBe(true);

    const shown = await session.get(`${page}?sent=2&lang=en`);
    expect(shown.html).toContain(`Sent to ${elsewhere.url}: delivered (HTTP 200,`);
    expect(shown.html).toContain(`data-sent-to="${elsewhere.url}"`);
    const event = await eventOf(id);
    // The event stands where it stood: delivered to its own URL; the attempt is one more of its log.
    expect(event).toMatchObject({ status: 'delivered', attempts: 2, destination: hooks.url });
    expect(event.attempt_log.map((a: { sent_to: string; number: number }) => [a.number, a.sent_to])).toEqual([
      [1, hooks.url],
      [2, elsewhere.url],
    ]);
    expect(event.attempt_log[1].headers[SIGNATURE_HEADER]).toBe(received.headers[SIGNATURE_HEADER]);
  });

  it('shows a failed attempt with its error, and changes nothing else', async () => {
    const session = await signedIn(users.developer);
    const id = await testEvent(session);
    const page = `/dashboard/events/${id}`;
    elsewhere.answer(() => ({ status: 503, body: 'down' }));
    try {
      const sent = await post(session, page, `${page}/send-to`, { url: elsewhere.url });
      expect(sent.status).toBe(303);
      const shown = await session.get(`${sent.location}&lang=en`);
      expect(shown.html).toContain(`Sent to ${elsewhere.url}: failed (HTTP 503,`);
      expect(await eventOf(id)).toMatchObject({ status: 'delivered', attempts: 2 });
    } finally {
      elsewhere.answer(() => ({ status: 200, body: 'ok' }));
    }
  });

  it('refuses a URL that is not a web URL, or that a production account may not notify, with the field marked and nothing sent', async () => {
    const session = await signedIn(users.developer);
    const id = await testEvent(session);
    const page = `/dashboard/events/${id}`;
    const bad = await session.get(`${page}/send-to?url=ftp%3A%2F%2Fexample.com&lang=en`);
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('aria-invalid="true"');
    expect(bad.html).toContain('Write a whole web address');
    const posted = await post(session, page, `${page}/send-to`, { url: 'not a url' });
    expect(posted.status).toBe(400);
    expect(await attemptsOf(id)).toHaveLength(1);

    // A production account: private addresses are refused, as for its notify_url.
    const production = await server.account({ name: 'Live', developer: false, notifyUrl: 'https://hooks.example.com/notify' });
    const live = await signedIn(await addDashboardUser(server.ctx, production.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@live.test' }));
    const liveEvent = await testEvent(live);
    const refused = await live.get(`/dashboard/events/${liveEvent}/send-to?${new URLSearchParams({ url: elsewhere.url, lang: 'en' })}`);
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('only to the public internet addresses the installation allows');
    const sentAnyway = await post(live, `/dashboard/events/${liveEvent}`, `/dashboard/events/${liveEvent}/send-to`, { url: elsewhere.url });
    expect(sentAnyway.status).toBe(400);
    expect(await attemptsOf(liveEvent)).toHaveLength(1);
  });

  it("refuses a developer-mode account a link-local URL, a cloud's metadata service among them, and sends nothing", async () => {
    const session = await signedIn(users.developer);
    const id = await testEvent(session);
    const page = `/dashboard/events/${id}`;
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]:8080/hooks']) {
      const asked = await session.get(`${page}/send-to?${new URLSearchParams({ url, lang: 'en' })}`);
      expect(asked.status).toBe(400);
      expect(asked.html).toContain('link-local addresses such as 169.254.169.254 only where the operator allows it');
      expect((await post(session, page, `${page}/send-to`, { url })).status).toBe(400);
    }
    expect(await attemptsOf(id)).toHaveLength(1);
  });

  it('is not offered for an email, which has no URL: a 409 that sends nothing', async () => {
    const created = await api().post('/v3/payments', {
      amount: 1000,
      currency: 'CLP',
      subject: 'Mailed',
      payer_email: 'ana@example.com',
      payer_name: 'Ana',
      send_email: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const [email] = await server.ctx.db.selectFrom('messages').select('message_id').where('subject_id', '=', created.body.payment_id).execute();
    const session = await signedIn(users.developer);
    const page = `/dashboard/events/${email!.message_id}`;
    expect((await session.get(page)).html).not.toContain('id="send-to"');
    expect((await session.get(`${page}/send-to?url=${encodeURIComponent(elsewhere.url)}`)).status).toBe(409);
    const before = elsewhere.requests.length;
    expect((await post(session, page, `${page}/send-to`, { url: elsewhere.url })).status).toBe(409);
    expect(elsewhere.requests.length).toBe(before);
    expect(await attemptsOf(email!.message_id)).toHaveLength(0);
  });

  it("is refused to a viewer, and another account's event is not found", async () => {
    const developer = await signedIn(users.developer);
    const id = await testEvent(developer);
    const viewer = await signedIn(users.viewer);
    const page = await viewer.get(`/dashboard/events/${id}`);
    expect(page.html).not.toContain('id="send-to"');
    const before = elsewhere.requests.length;
    expect((await post(viewer, `/dashboard/events/${id}`, `/dashboard/events/${id}/send-to`, { url: elsewhere.url })).status).toBe(403);

    const other = await server.account({ name: 'Other' });
    const stranger = await signedIn(await addDashboardUser(server.ctx, other.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@other.test' }));
    expect((await stranger.get(`/dashboard/events/${id}/send-to?url=${encodeURIComponent(elsewhere.url)}`)).status).toBe(404);
    expect((await post(stranger, '/dashboard/events', `/dashboard/events/${id}/send-to`, { url: elsewhere.url })).status).toBe(404);
    expect(elsewhere.requests.length).toBe(before);
    expect(await attemptsOf(id)).toHaveLength(1);
  });
});
