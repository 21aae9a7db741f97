// Each account's registered notification hosts (NOTIFY_URL_ACCOUNT_HOSTS, ASVS 13.2.4, 13.2.5), as
// the peers' registered webhook endpoints: on a production installation an account is notified
// only at the hosts it registered and at its own notify_url's. Every notify_url given elsewhere
// (v3 and v2 payments, subscriptions, charge intents, receivers, the account's rendition_url) is a
// 400 naming the field that writes nothing, and a URL stored before its host was removed is
// refused before each attempt. The hosts are kept in the dashboard's Settings (owners and
// developers, audited) and by `quipu merchants update --notify-hosts`. Developer mode is left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { loadConfig } from '../../src/config.js';
import { DASHBOARD_ROLES, type DashboardRole } from '../../src/domain/dashboard-roles.js';
import { reconcilePayment } from '../../src/app/reconcile-payment.js';
import { testWorker } from '../helpers/delivery.js';
import { dashboardSession, postForm } from '../helpers/dashboard-session.js';
import { call, client } from '../helpers/http.js';
import { eventually, type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { countRows, DEMO_CREDIT } from '../helpers/payments.js';
import type { PayerSession } from '../helpers/payer-session.js';
import { quipu } from '../helpers/quipu-processes.js';
import { validReceiver } from '../helpers/receivers.js';
import { CHOSEN_PASSWORD, serversClosedAfterAll, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createSubscriptionOver, NEW_SUBSCRIPTION, newCharge } from '../helpers/subscriptions.js';

const NOT_REGISTERED =
  "names a host this account has not registered for notifications: add it to the notification hosts in the dashboard's Settings (the host of the account's notify_url counts as registered)";
const NOT_ALLOWED = "names a host this installation's operator does not allow notifications to";
const NEW_PAYMENT = { amount: 1000, currency: 'CLP', subject: 'Registered hosts' };
const SETTINGS = '/dashboard/settings';
const HOSTS_FORM = '/dashboard/settings/notify-hosts';

const started = serversClosedAfterAll();

/** The notification of `paymentId` once its first attempt is logged. */
async function firstAttempt(server: TestServer, account: TestAccount, paymentId: string) {
  const api = client(server.baseUrl, account.api_key);
  const id = (await api.get(`/quipu/v1/notifications?payment_id=${paymentId}`)).body.notifications[0].notification_id;
  const attempted = await eventually(
    async () => (await api.get(`/quipu/v1/notifications/${id}`)).body,
    (n) => n.attempts > 0,
  );
  return attempted.attempt_log[0];
}

/** Waits until this process's copy of the account has the hosts a change elsewhere (another process) gave it. */
async function hostsSeen(server: TestServer, receiverId: number, hosts: string[]): Promise<void> {
  await eventually(
    async () => (await server.ctx.merchants.byReceiverId(receiverId))!.notifyHosts,
    (seen) => JSON.stringify(seen) === JSON.stringify(hosts),
  );
}

describe('the setting', () => {
  it('is on with SANDBOX=false and off in developer mode, unless said otherwise', () => {
    expect(loadConfig({}).notifyDestinations.accountHosts).toBe(false);
    expect(loadConfig({ SANDBOX: 'false' }).notifyDestinations.accountHosts).toBe(true);
    expect(loadConfig({ SANDBOX: 'false', NOTIFY_URL_ACCOUNT_HOSTS: 'false' }).notifyDestinations.accountHosts).toBe(false);
    expect(loadConfig({ NOTIFY_URL_ACCOUNT_HOSTS: 'true' }).notifyDestinations.accountHosts).toBe(true);
    expect(() => loadConfig({ NOTIFY_URL_ACCOUNT_HOSTS: 'maybe' })).toThrow(/NOTIFY_URL_ACCOUNT_HOSTS must be true or false/);
  });
});

describe('a production installation (SANDBOX=false)', () => {
  let server: TestServer;
  let account: TestAccount;

  beforeAll(async () => {
    server = await started({ SANDBOX: 'false' });
    account = await server.account({
      developer: false,
      features: { integrator: true },
      notifyUrl: 'https://shop.example/notify',
      notifyHosts: '*.hooks.example, 8.8.8.8',
    });
  });

  it('refuses a notify_url on a host the account did not register, wherever one is given, writing nothing', async () => {
    const api = client(server.baseUrl, account.api_key);
    const tables = ['payments', 'subscriptions', 'merchants'] as const;
    const before = await Promise.all(tables.map((table) => countRows(server.ctx.db, table)));

    const v3 = await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://elsewhere.example/notify' });
    expect(v3.status).toBe(400);
    expect(v3.body.errors).toEqual([{ field: 'notify_url', message: NOT_REGISTERED }]);

    const v2 = await call(server.baseUrl, 'POST', '/2.0/payments', {
      apiKey: account.api_key,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({ subject: 'x', currency: 'CLP', amount: '1000', notify_url: 'https://elsewhere.example/notify' }).toString(),
    });
    expect(v2.status).toBe(400);
    expect(JSON.stringify(v2.body)).toContain('notify_url');
    expect(JSON.stringify(v2.body)).toContain('has not registered');

    const subscription = await api.post('/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, notify_url: 'https://elsewhere.example/subscription' });
    expect(subscription.status).toBe(400);
    expect(subscription.body.errors).toContainEqual({ field: 'notify_url', message: NOT_REGISTERED });

    // A wildcard that is not the bare name: `*.hooks.example` does not take hooks.example.
    const receiver = await api.post('/v3/receivers', { ...validReceiver, notify_url: 'https://hooks.example/notify' });
    expect(receiver.status).toBe(400);
    expect(receiver.body.errors).toEqual([{ field: 'notify_url', message: NOT_REGISTERED }]);

    await expect(updateMerchant(server.ctx, account.receiver_id, { renditionUrl: 'https://elsewhere.example/rendition' })).rejects.toMatchObject({
      fields: [{ field: 'rendition_url', message: NOT_REGISTERED }],
    });
    expect(await Promise.all(tables.map((table) => countRows(server.ctx.db, table)))).toEqual(before);

    const subscriptionId = await createSubscriptionOver(api, { notify_url: 'https://a.hooks.example/subscription' });
    const charge = await api.post('/v1/automatic-payment/charge-intent', newCharge(subscriptionId, { notify_url: 'https://elsewhere.example/charge' }));
    expect(charge.status).toBe(400);
    expect(charge.body.errors).toContainEqual({ field: 'notify_url', message: NOT_REGISTERED });
  });

  it("takes the notify_url's own host, a registered wildcard's names and a registered address", async () => {
    const api = client(server.baseUrl, account.api_key);
    for (const url of ['https://shop.example/other-path', 'https://a.hooks.example/n', 'https://A.B.Hooks.Example./n', 'https://8.8.8.8/n']) {
      expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: url })).status, url).toBe(200);
    }
    // A receiver opened on the integrator's hosts registers its rendition_url's host for itself.
    const opened = await api.post('/v3/receivers', { ...validReceiver, notify_url: 'https://a.hooks.example/n', rendition_url: 'https://b.hooks.example/r' });
    expect(opened.status).toBe(200);
    expect((await server.ctx.merchants.byReceiverId(Number(opened.body.receiver_id)))!.notifyHosts).toEqual(['b.hooks.example']);
  });

  it('does not send to a URL whose host was removed after the payment was made, saying why', async () => {
    const owner = await server.account({ developer: false, notifyHosts: 'pay.hooks.example' });
    const api = client(server.baseUrl, owner.api_key);
    const created = await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://pay.hooks.example/n' });
    expect(created.status).toBe(200);
    const { merchant } = await updateMerchant(server.ctx, owner.receiver_id, { notifyHosts: '' });
    expect(merchant.notifyHosts).toEqual([]);
    await reconcilePayment(server.ctx, merchant, created.body.payment_id, { ...DEMO_CREDIT, creditedAt: server.ctx.clock.now() });
    const worker = testWorker(server);
    try {
      expect(await firstAttempt(server, owner, created.body.payment_id)).toMatchObject({
        outcome: 'failed',
        http_status: null,
        error: `refused: pay.hooks.example ${NOT_REGISTERED}`,
      });
    } finally {
      await worker.stop();
    }
  });

  it("applies the operator's allowlist and the account's hosts both", async () => {
    const both = await started({ SANDBOX: 'false', NOTIFY_URL_ALLOWED_HOSTS: '*.hooks.example' });
    const registered = await both.account({ developer: false, notifyHosts: 'a.hooks.example, other.example' });
    const api = client(both.baseUrl, registered.api_key);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://a.hooks.example/n' })).status).toBe(200);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://other.example/n' })).body.errors).toEqual([
      { field: 'notify_url', message: NOT_ALLOWED },
    ]);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://b.hooks.example/n' })).body.errors).toEqual([
      { field: 'notify_url', message: NOT_REGISTERED },
    ]);
  });

  it('refuses a list with an entry that is not a host, naming it', async () => {
    await expect(updateMerchant(server.ctx, account.receiver_id, { notifyHosts: 'ok.example, https://shop.example/' })).rejects.toMatchObject({
      fields: [{ field: 'notify_hosts', message: 'https://shop.example/ is not a host name, a *.name wildcard or an address' }],
    });
    expect((await server.ctx.merchants.byReceiverId(account.receiver_id))!.notifyHosts).toEqual(['*.hooks.example', '8.8.8.8']);
  });
});

describe('delivery to a real receiver (developer installation with NOTIFY_URL_ACCOUNT_HOSTS=true, so loopback is reachable)', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => receiver?.close());

  it('delivers to a registered host, and sends nothing once the host is removed', async () => {
    const server = await started({ NOTIFY_URL_ACCOUNT_HOSTS: 'true' });
    const account = await server.account({ notifyHosts: '127.0.0.1' });
    const api = client(server.baseUrl, account.api_key);
    const first = await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: receiver.url });
    const second = await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: receiver.url });
    expect([first.status, second.status]).toEqual([200, 200]);
    const worker = testWorker(server);
    try {
      await reconcilePayment(server.ctx, account.merchant, first.body.payment_id, { ...DEMO_CREDIT, creditedAt: server.ctx.clock.now() });
      await receiver.waitFor((requests) => requests.some((r) => r.body.includes(first.body.payment_id)));

      const { merchant } = await updateMerchant(server.ctx, account.receiver_id, { notifyHosts: '' });
      await reconcilePayment(server.ctx, merchant, second.body.payment_id, { ...DEMO_CREDIT, creditedAt: server.ctx.clock.now() });
      expect(await firstAttempt(server, account, second.body.payment_id)).toMatchObject({
        outcome: 'failed',
        error: `refused: 127.0.0.1 ${NOT_REGISTERED}`,
      });
      expect(receiver.requests.some((r) => r.body.includes(second.body.payment_id))).toBe(false);
    } finally {
      await worker.stop();
    }
  });

  it('leaves developer mode alone by default: any host is notified', async () => {
    const server = await started({});
    const account = await server.account();
    const api = client(server.baseUrl, account.api_key);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'http://anywhere.example/n' })).status).toBe(200);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: receiver.url })).status).toBe(200);
  });
});

describe("the dashboard's Settings", () => {
  let server: TestServer;
  let account: TestAccount;
  const sessions = {} as Record<DashboardRole, PayerSession>;

  beforeAll(async () => {
    // Users sign in with their password alone here: the second factor has its own tests (two-factor.test.ts).
    server = await started({ SANDBOX: 'false', DASHBOARD_TWO_FACTOR: 'optional' });
    account = await server.account({ developer: false, notifyUrl: 'https://shop.example/notify' });
    for (const role of DASHBOARD_ROLES) {
      const user = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: `${role}@hosts.test`, role });
      sessions[role] = await dashboardSession(server.baseUrl, user);
    }
  });

  const auditedSince = async (seq: number) =>
    server.ctx.db.selectFrom('audit_log').selectAll().where('seq', '>', seq).where('action', '=', 'settings.update').orderBy('seq').execute();
  const lastSeq = async () =>
    Number(
      (
        await server.ctx.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .executeTakeFirst()
      )?.seq ?? 0,
    );

  it('shows the hosts and the rule, and lets owners and developers replace them, audited', async () => {
    const page = await sessions.developer.get(SETTINGS);
    expect(page.html).toContain('id="notify-hosts-rule"');
    expect(page.html).toContain('solo a estos hosts y al de la notify_url por defecto');
    const since = await lastSeq();
    const saved = await postForm(sessions.developer, SETTINGS, HOSTS_FORM, { notify_hosts: 'a.example\n*.B.example, a.example' });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${SETTINGS}?done=hosts`);
    expect((await server.ctx.merchants.byReceiverId(account.receiver_id))!.notifyHosts).toEqual(['a.example', '*.b.example']);
    expect((await sessions.owner.get(SETTINGS)).html).toMatch(
      /<textarea id="notify_hosts" name="notify_hosts" rows="4">a\.example\n\*\.b\.example<\/textarea>/,
    );
    await expect
      .poll(async () => (await auditedSince(since)).map((r) => ({ actor: r.actor, target: r.target, outcome: r.outcome })), { timeout: 5_000 })
      .toEqual([{ actor: 'developer@hosts.test', target: HOSTS_FORM, outcome: 'ok' }]);

    const api = client(server.baseUrl, account.api_key);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://x.b.example/n' })).status).toBe(200);
    expect((await postForm(sessions.owner, SETTINGS, HOSTS_FORM, { notify_hosts: '' })).status).toBe(303);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://x.b.example/n' })).body.errors).toEqual([
      { field: 'notify_url', message: NOT_REGISTERED },
    ]);
  });

  it('names a bad entry beside the list and saves nothing', async () => {
    await postForm(sessions.owner, SETTINGS, HOSTS_FORM, { notify_hosts: 'kept.example' });
    const refused = await postForm(sessions.owner, SETTINGS, HOSTS_FORM, { notify_hosts: 'new.example\nhttps://shop.example/hook' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('id="notify_hosts-error"');
    expect(refused.html).toContain('https://shop.example/hook');
    expect(refused.html).toContain('aria-invalid="true" aria-describedby="notify_hosts-error"');
    expect((await server.ctx.merchants.byReceiverId(account.receiver_id))!.notifyHosts).toEqual(['kept.example']);
  });

  it('holds "Send to another URL" to the hosts too: a 400 that sends nothing', async () => {
    const api = client(server.baseUrl, account.api_key);
    const created = await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://shop.example/n' });
    await reconcilePayment(server.ctx, account.merchant, created.body.payment_id, { ...DEMO_CREDIT, creditedAt: server.ctx.clock.now() });
    const id = (await api.get(`/quipu/v1/notifications?payment_id=${created.body.payment_id}`)).body.notifications[0].notification_id;
    const page = `/dashboard/events/${id}`;
    const refused = await postForm(sessions.developer, page, `${page}/send-to`, { url: 'https://elsewhere.example/n' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('hosts de notificación registrados en Configuración');
    expect((await api.get(`/quipu/v1/notifications/${id}`)).body.attempts).toBe(0);
  });

  it('is read-only for viewers, and refuses a form without its token', async () => {
    const page = await sessions.viewer.get(SETTINGS);
    expect(page.html).toMatch(/<fieldset class="settings" disabled><label for="notify_hosts">/);
    expect(page.html).not.toContain(`action="${HOSTS_FORM}"`);
    const since = await lastSeq();
    const viewer = await postForm(sessions.viewer, SETTINGS, HOSTS_FORM, { notify_hosts: 'viewer.example' });
    expect(viewer.status).toBe(403);
    const forged = await sessions.owner.post(HOSTS_FORM, { notify_hosts: 'forged.example' });
    expect(forged.status).toBe(403);
    expect((await server.ctx.merchants.byReceiverId(account.receiver_id))!.notifyHosts).toEqual(['kept.example']);
    await expect
      .poll(async () => (await auditedSince(since)).map((r) => [r.actor, r.outcome]), { timeout: 5_000 })
      .toContainEqual(['viewer@hosts.test', 'refused']);
  });
});

describe('quipu merchants update|create --notify-hosts', () => {
  it('replaces the hosts, which the running server then follows; a bad entry changes nothing', async () => {
    const server = await started({ SANDBOX: 'false' });
    const account = await server.account({ developer: false });
    const env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn', SANDBOX: 'false' };
    const id = String(account.receiver_id);
    const api = client(server.baseUrl, account.api_key);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://x.b.example/n' })).status).toBe(400);

    const set = await quipu(['merchants', 'update', id, '--notify-hosts', 'a.example,*.b.example', '--json'], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).notify_hosts).toEqual(['a.example', '*.b.example']);
    await hostsSeen(server, account.receiver_id, ['a.example', '*.b.example']);
    expect((await api.post('/v3/payments', { ...NEW_PAYMENT, notify_url: 'https://x.b.example/n' })).status).toBe(200);

    const bad = await quipu(['merchants', 'update', id, '--notify-hosts', 'a.example,b example/x'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('notify_hosts: example/x is not a host name, a *.name wildcard or an address');
    expect(JSON.parse((await quipu(['merchants', 'show', id, '--json'], env)).stdout).notify_hosts).toEqual(['a.example', '*.b.example']);

    const cleared = await quipu(['merchants', 'update', id, '--notify-hosts', '', '--json'], env);
    expect(JSON.parse(cleared.stdout).notify_hosts).toEqual([]);

    const created = await quipu(['merchants', 'create', '--name', 'Registered', '--production', '--notify-hosts', 'Hooks.Example.', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const shown = await quipu(['merchants', 'show', String(JSON.parse(created.stdout).receiver_id), '--json'], env);
    expect(JSON.parse(shown.stdout).notify_hosts).toEqual(['hooks.example']);
  }, 60_000);
});
