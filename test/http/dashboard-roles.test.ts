// Roles in the dashboard, checked on the server: an owner does everything, a developer works the
// integration (credentials, settings, resends, DemoBank, the clock) but moves no money, a viewer
// reads. Every action a role may not run is a 403 that changes nothing, whatever form is posted,
// and the pages offer only the forms the role may use. A role change and "sign out everywhere"
// end the user's sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser, type DashboardCredentials } from '../../src/app/add-dashboard-user.js';
import { changeDashboardRole } from '../../src/app/change-dashboard-role.js';
import { createPayment } from '../../src/app/create-payment.js';
import { getPayment } from '../../src/app/payment-queries.js';
import type { DashboardRole } from '../../src/domain/dashboard-roles.js';
import { basicAuth, formPost } from '../helpers/oauth.js';
import { payByTransfer } from '../helpers/payments.js';
import { dashboardSession, postForm } from '../helpers/dashboard-session.js';
import { csrfOf, type PageResponse, PayerSession } from '../helpers/payer-session.js';
import { startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const SIGN_IN = '/dashboard/sign-in';

let server: TestServer;
let account: TestAccount;
let hooks: Receiver;
const users = {} as Record<DashboardRole, DashboardCredentials>;

beforeAll(async () => {
  server = await startTestServer();
  hooks = await startReceiver();
  account = await server.account({ features: { refunds: true }, notifyUrl: hooks.url });
  for (const role of ['owner', 'developer', 'viewer'] as const)
    users[role] = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: `${role}@roles.test`, role });
});
afterAll(async () => {
  await hooks?.close();
  await server?.close();
});

const signedIn = (credentials: DashboardCredentials) => dashboardSession(server.baseUrl, credentials);
const post = postForm;

// Made and read through the use cases: a rotation allowed to an owner changes the API key.
async function payment(paid: boolean): Promise<string> {
  const created = await createPayment(server.ctx, account.merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'Roles' });
  if (paid) await payByTransfer(server.ctx, account.merchant, created.paymentId);
  return created.paymentId;
}

const paymentOf = (id: string) => getPayment(server.ctx, account.merchant, id);
const messagesOf = async (id: string) =>
  server.ctx.db.selectFrom('messages').select(['message_id', 'attempts', 'status']).where('subject_id', '=', id).execute();

interface Action {
  what: string;
  allowed: readonly DashboardRole[];
  /** Sets up what the action acts on; returns the page it is posted from, the action and what to compare. */
  prepare: () => Promise<{ page: string; action: string; fields?: Record<string, string>; state: () => Promise<unknown> }>;
}

const ACTIONS: Action[] = [
  {
    what: 'refund a payment',
    allowed: ['owner'],
    prepare: async () => {
      const id = await payment(true);
      return { page: `/dashboard/payments/${id}`, action: `/dashboard/payments/${id}/refund`, fields: { amount: '' }, state: () => paymentOf(id) };
    },
  },
  {
    what: 'delete a payment',
    allowed: ['owner'],
    prepare: async () => {
      const id = await payment(false);
      return { page: `/dashboard/payments/${id}`, action: `/dashboard/payments/${id}/delete`, state: () => paymentOf(id) };
    },
  },
  {
    what: 'pay at DemoBank',
    allowed: ['owner', 'developer'],
    prepare: async () => {
      const id = await payment(false);
      return { page: `/dashboard/payments/${id}`, action: `/dashboard/payments/${id}/demobank-pay`, state: () => paymentOf(id) };
    },
  },
  {
    what: 'resend a notification',
    allowed: ['owner', 'developer'],
    prepare: async () => {
      const id = await payment(true);
      const [message] = await messagesOf(id);
      return { page: `/dashboard/payments/${id}`, action: `/dashboard/events/${message!.message_id}/resend`, state: () => messagesOf(id) };
    },
  },
  {
    what: 'send an event to another URL',
    allowed: ['owner', 'developer'],
    prepare: async () => {
      const id = await payment(true);
      const [message] = await messagesOf(id);
      return {
        page: `/dashboard/events/${message!.message_id}`,
        action: `/dashboard/events/${message!.message_id}/send-to`,
        fields: { url: `${hooks.url}?elsewhere` },
        state: () => messagesOf(id),
      };
    },
  },
  {
    what: 'send a test event',
    allowed: ['owner', 'developer'],
    prepare: async () => ({
      page: '/dashboard/settings',
      action: '/dashboard/settings/test-event',
      state: async () => (await server.ctx.db.selectFrom('messages').select('message_id').where('kind', '=', 'receiver.test').execute()).length,
    }),
  },
  {
    what: 'reveal the credentials',
    allowed: ['owner', 'developer'],
    // Nothing changes either way: the refusal shows nothing of them.
    prepare: async () => ({ page: '/dashboard/settings', action: '/dashboard/settings/reveal', state: async () => null }),
  },
  {
    what: 'rotate the API key',
    allowed: ['owner', 'developer'],
    prepare: async () => ({
      page: '/dashboard/settings',
      action: '/dashboard/settings/rotate-key',
      fields: { confirm: 'yes' },
      state: async () =>
        (await server.ctx.db.selectFrom('merchants').select('api_key_hash').where('receiver_id', '=', account.receiver_id).executeTakeFirst())?.api_key_hash,
    }),
  },
  {
    what: 'revoke every access token',
    allowed: ['owner', 'developer'],
    prepare: async () => {
      expect((await formPost(server.baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, basicAuth(account))).status).toBe(200);
      return {
        page: '/dashboard/settings',
        action: '/dashboard/settings/revoke-tokens',
        fields: { confirm: 'yes' },
        state: async () =>
          (
            await server.ctx.db
              .selectFrom('oauth_tokens')
              .select('jti')
              .where('receiver_id', '=', account.receiver_id)
              .where('revoked_at', 'is', null)
              .execute()
          ).length,
      };
    },
  },
  {
    what: 'change the notification settings',
    allowed: ['owner', 'developer'],
    prepare: async () => ({
      page: '/dashboard/settings',
      action: '/dashboard/settings',
      fields: { notify_url: `${hooks.url}?changed=${Math.random()}`, notify_api_version: '3.0', rendition_url: '', redirect_uris: '' },
      state: async () => (await server.ctx.merchants.byReceiverId(account.receiver_id))?.notifyUrl,
    }),
  },
  {
    what: 'move the clock',
    allowed: ['owner', 'developer'],
    prepare: async () => ({
      page: '/dashboard/developer',
      action: '/dashboard/developer/clock/advance',
      fields: { advance: '1h' },
      state: async () => server.ctx.clock.offsetMs,
    }),
  },
];

describe.each(ACTIONS)('$what', (action) => {
  it.each(['owner', 'developer', 'viewer'] as const)('as %s', async (role) => {
    const session = await signedIn(users[role]);
    const { page, action: path, fields, state } = await action.prepare();
    const before = await state();
    const answer = await post(session, page, path, fields);
    if (action.allowed.includes(role)) {
      expect(answer.status, answer.html.slice(0, 300)).toBeLessThan(400);
      return;
    }
    expect(answer.status).toBe(403);
    expect(answer.html).toContain(`Tu rol (${role === 'viewer' ? 'lector' : 'desarrollador'}) no permite hacer esto en la cuenta. No se hizo nada.`);
    expect(answer.html).not.toContain('id="api-key"');
    expect(await state()).toEqual(before);
  });
});

describe('the pages offer only the forms the role may use', () => {
  it("a viewer's payment and settings pages have no action forms; an owner's have them", async () => {
    const id = await payment(true);
    const viewer = await signedIn(users.viewer);
    const owner = await signedIn(users.owner);
    const forms = (page: PageResponse) =>
      [...page.html.matchAll(/<form method="(?:post|get)" action="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !a.includes('sign-out'));
    expect(forms(await viewer.get(`/dashboard/payments/${id}`))).toEqual([]);
    expect(forms(await viewer.get('/dashboard/settings'))).toEqual(['/dashboard/settings/password']);
    expect(forms(await viewer.get('/dashboard/developer'))).toEqual([]);
    expect(forms(await owner.get(`/dashboard/payments/${id}`))).toEqual(expect.arrayContaining([`/dashboard/payments/${id}/refund`]));
    expect(forms(await owner.get('/dashboard/settings'))).toEqual([
      '/dashboard/settings/reveal',
      '/dashboard/settings/rotate-key',
      '/dashboard/settings/rotate-secret',
      '/dashboard/settings/revoke-tokens',
      '/dashboard/settings',
      '/dashboard/settings/test-event',
      '/dashboard/settings/notify-hosts',
      '/dashboard/settings/password',
    ]);
    expect((await viewer.get('/dashboard')).html).toContain('<span class="role" id="role">lector</span>');
  });
});

describe('sessions', () => {
  it('a role change ends every session of the user: they sign in again under the new role', async () => {
    const person = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: 'promoted@roles.test', role: 'viewer' });
    const session = await signedIn(person);
    expect((await session.get('/dashboard')).status).toBe(200);
    await changeDashboardRole(server.ctx, person.email, 'developer');
    const after = await session.get('/dashboard');
    expect(after.status).toBe(303);
    expect(after.location).toBe(SIGN_IN);
    expect((await (await signedIn(person)).get('/dashboard')).html).toContain('<span class="role" id="role">desarrollador</span>');
  });

  it("changing one's own password checks the current one, ends every other session and keeps this browser signed in", async () => {
    const person = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: 'new-password@roles.test', role: 'viewer' });
    const [here, elsewhere] = [await signedIn(person), await signedIn(person)];
    const change = (fields: Record<string, string>) => post(here, '/dashboard/settings', '/dashboard/settings/password', fields);
    const wrong = await change({ current: 'not-it', next: 'Heron-Basalt-Cedar-31' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('La contraseña actual no es correcta. No se cambió nada.');
    expect((await change({ current: person.password, next: 'short' })).status).toBe(400);
    expect((await elsewhere.get('/dashboard')).status).toBe(200);

    const changed = await change({ current: person.password, next: 'Heron-Basalt-Cedar-31' });
    expect(changed.status).toBe(303);
    expect(changed.location).toBe('/dashboard/settings?done=password');
    expect((await here.get('/dashboard/settings?done=password')).html).toContain('Contraseña cambiada.');
    expect((await elsewhere.get('/dashboard')).location).toBe(SIGN_IN);
    await signedIn({ email: person.email, password: 'Heron-Basalt-Cedar-31' });
    const old = new PayerSession(server.baseUrl);
    expect((await old.post(SIGN_IN, { _csrf: csrfOf(await old.get(SIGN_IN)), email: person.email, password: person.password })).status).toBe(401);
  });

  it("sign out everywhere ends every session of the user, and no one else's", async () => {
    const person = await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: 'laptop-lost@roles.test', role: 'viewer' });
    const [laptop, phone, colleague] = [await signedIn(person), await signedIn(person), await signedIn(users.owner)];
    const answer = await post(phone, '/dashboard', '/dashboard/sign-out-everywhere');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(SIGN_IN);
    for (const ended of [laptop, phone]) expect((await ended.get('/dashboard')).location).toBe(SIGN_IN);
    expect((await colleague.get('/dashboard')).status).toBe(200);
  });
});
