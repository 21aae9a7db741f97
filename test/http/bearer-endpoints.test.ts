// Bearer authentication on every endpoint that authenticates a merchant. The endpoints come from
// the running server's own route list: a route that answers a request without credentials with the
// merchant APIs' 401 must have a row in the table below, so a new one cannot be forgotten. Each row
// says how to call its endpoint successfully with fresh resources of an account; then every endpoint
// accepts that account's bearer token and acts as that account, refuses a bad token with a bare 401,
// refuses both credentials with 400, and with API_KEYS_RETIRED refuses x-api-key with the clear
// error while the bearer token keeps working. The dashboard's pages take a session, never a token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCharge } from '../../src/app/create-charge.js';
import { createPayment } from '../../src/app/create-payment.js';
import { createSubscription } from '../../src/app/create-subscription.js';
import { issueDescriptor } from '../../src/app/issue-descriptor.js';
import type { RawValue } from '../../src/domain/field-rules.js';
import { reconciledPaymentIn } from '../helpers/delivery.js';
import { call, type JsonResponse } from '../helpers/http.js';
import { clientCredentialsToken, FORM } from '../helpers/oauth.js';
import { csrfOf, loginToDemoBank, PayerSession, startDemoBankAttempt } from '../helpers/payer-session.js';
import { payByTransfer } from '../helpers/payments.js';
import { validReceiver } from '../helpers/receivers.js';
import { NEW_DESCRIPTOR } from '../helpers/operations.js';
import { concretePath, registeredRoutes } from '../helpers/routes.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { NEW_SUBSCRIPTION, newCharge, signAtDemoBank } from '../helpers/subscriptions.js';

/** A request to one endpoint: JSON, a form, or no body. */
interface Call {
  method: string;
  path: string;
  json?: unknown;
  form?: Record<string, string>;
}

interface Endpoint {
  /** Creates what the call needs, owned by `account`, and returns the call. */
  prepare(on: TestServer, account: TestAccount): Promise<Call>;
  /** Checks that the successful answer is the account's own. */
  check?(res: JsonResponse, account: TestAccount, on: TestServer): Promise<void> | void;
  /** The call names a resource of the account, which another account's token must not reach. */
  owned?: true;
  /** The success status when it is not 200 (a removal that answers no body). */
  status?: number;
}

const FEATURES = { features: { confirm: true, refunds: true, integrator: true } };
const NEW_PAYMENT = { amount: 1000, currency: 'CLP', subject: 'Bearer everywhere' };
const NOTIFIED = { notify_url: 'https://shop.example/notify', notify_api_version: '1.3' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

// Fixtures go through the use cases, not the API: the retired server takes no API key.
const pending = async (on: TestServer, account: TestAccount) => (await createPayment(on.ctx, account.merchant, 'v3', NEW_PAYMENT)).paymentId;
const paid = async (on: TestServer, account: TestAccount) => {
  const id = await pending(on, account);
  await payByTransfer(on.ctx, account.merchant, id);
  return id;
};
const notified = (on: TestServer, account: TestAccount) => reconciledPaymentIn(on.ctx, account.merchant, NOTIFIED);
const notificationOf = async (on: TestServer, account: TestAccount) => {
  const payment = await notified(on, account);
  const row = await on.ctx.db.selectFrom('notifications').select('notification_id').where('payment_id', '=', payment.paymentId).executeTakeFirstOrThrow();
  return row.notification_id;
};
/** A payment whose collection request was emailed to its payer. */
const emailed = async (on: TestServer, account: TestAccount) =>
  (await createPayment(on.ctx, account.merchant, 'v3', { ...NEW_PAYMENT, send_email: true, payer_name: 'Ana', payer_email: 'ana@example.com' })).paymentId;
const emailOf = async (on: TestServer, account: TestAccount) => {
  const paymentId = await emailed(on, account);
  const row = await on.ctx.db.selectFrom('messages').select('message_id').where('subject_id', '=', paymentId).executeTakeFirstOrThrow();
  return row.message_id;
};
/** A payment whose DemoBank transfer the bank left uncertain, through the payer's pages. */
const uncertain = async (on: TestServer, account: TestAccount) => {
  const id = await pending(on, account);
  const session = new PayerSession(on.baseUrl);
  const coordinates = await loginToDemoBank(session, await startDemoBankAttempt(session, id));
  const sent = await session.post(coordinates, { _csrf: csrfOf(await session.get(coordinates)), c1: '12', c2: '34', c3: '56' });
  if (sent.status !== 303) throw new Error(`transfer not left uncertain: ${sent.status}`);
  return id;
};
const subscription = async (on: TestServer, account: TestAccount) => (await createSubscription(on.ctx, account.merchant, NEW_SUBSCRIPTION)).subscriptionId;
const enabledSubscription = async (on: TestServer, account: TestAccount) => {
  const id = await subscription(on, account);
  await signAtDemoBank(on.ctx, id);
  return id;
};
/** A charge intent's payment, its debit not submitted yet. */
const charge = async (on: TestServer, account: TestAccount) =>
  (await createCharge(on.ctx, account.merchant, newCharge(await enabledSubscription(on, account)) as Record<string, RawValue>)).paymentId;
const operation = async (on: TestServer, account: TestAccount) => (await issueDescriptor(on.ctx, account.merchant, NEW_DESCRIPTOR)).operationId;
const operationOwnerOf = async (on: TestServer, operationId: string) =>
  (await on.ctx.db.selectFrom('operations').select('receiver_id').where('operation_id', '=', operationId).executeTakeFirstOrThrow()).receiver_id;
const ownerOf = async (on: TestServer, paymentId: string) =>
  (await on.ctx.db.selectFrom('payments').select('receiver_id').where('payment_id', '=', paymentId).executeTakeFirstOrThrow()).receiver_id;
const parentOf = async (on: TestServer, receiverId: string) => (await on.ctx.merchants.byReceiverId(Number(receiverId)))?.parentReceiverId;

function v2Endpoints(prefix: string): Record<string, Endpoint> {
  return {
    [`GET ${prefix}/banks`]: { prepare: async () => ({ method: 'GET', path: `${prefix}/banks` }) },
    [`POST ${prefix}/payments`]: {
      prepare: async () => ({ method: 'POST', path: `${prefix}/payments`, form: { subject: 'v2', currency: 'CLP', amount: '1000' } }),
      check: async (res, account, on) => expect(await ownerOf(on, res.body.payment_id)).toBe(account.receiver_id),
    },
    [`GET ${prefix}/payments`]: {
      prepare: async (on, account) => ({ method: 'GET', path: `${prefix}/payments?notification_token=${(await notified(on, account)).notificationToken}` }),
      check: async (res, account, on) => expect(await ownerOf(on, res.body.payment_id)).toBe(account.receiver_id),
      owned: true,
    },
    [`GET ${prefix}/payments/:id`]: {
      prepare: async (on, account) => ({ method: 'GET', path: `${prefix}/payments/${await pending(on, account)}` }),
      check: async (res, account, on) => expect(await ownerOf(on, res.body.payment_id)).toBe(account.receiver_id),
      owned: true,
    },
    [`DELETE ${prefix}/payments/:id`]: {
      prepare: async (on, account) => ({ method: 'DELETE', path: `${prefix}/payments/${await pending(on, account)}` }),
      owned: true,
    },
    [`POST ${prefix}/payments/:id/confirm`]: {
      prepare: async (on, account) => ({ method: 'POST', path: `${prefix}/payments/${await paid(on, account)}/confirm` }),
      owned: true,
    },
    [`POST ${prefix}/payments/:id/refunds`]: {
      prepare: async (on, account) => ({ method: 'POST', path: `${prefix}/payments/${await paid(on, account)}/refunds` }),
      owned: true,
    },
    [`POST ${prefix}/receivers`]: {
      prepare: async () => ({ method: 'POST', path: `${prefix}/receivers`, form: validReceiver }),
      check: async (res, account, on) => expect(await parentOf(on, res.body.receiver_id)).toBe(account.receiver_id),
    },
    [`GET ${prefix}/merchants/:id/paymentMethods`]: {
      prepare: async (_on, account) => ({ method: 'GET', path: `${prefix}/merchants/${account.receiver_id}/paymentMethods` }),
      owned: true,
    },
  };
}

const ENDPOINTS: Record<string, Endpoint> = {
  'GET /v3/banks': {
    prepare: async () => ({ method: 'GET', path: '/v3/banks' }),
    // DemoBank is listed to developer-mode accounts only, such as the token's.
    check: (res) => expect(res.body.banks.map((b: { bank_id: string }) => b.bank_id)).toContain('Bawdf'),
  },
  'POST /v3/payments': {
    prepare: async () => ({ method: 'POST', path: '/v3/payments', json: NEW_PAYMENT }),
    check: async (res, account, on) => expect(await ownerOf(on, res.body.payment_id)).toBe(account.receiver_id),
  },
  'GET /v3/payments/:id': {
    prepare: async (on, account) => ({ method: 'GET', path: `/v3/payments/${await pending(on, account)}` }),
    check: (res, account) => expect(res.body.receiver_id).toBe(account.receiver_id),
    owned: true,
  },
  'DELETE /v3/payments/:id': { prepare: async (on, account) => ({ method: 'DELETE', path: `/v3/payments/${await pending(on, account)}` }), owned: true },
  'POST /v3/payments/:id/confirm': {
    prepare: async (on, account) => ({ method: 'POST', path: `/v3/payments/${await paid(on, account)}/confirm` }),
    owned: true,
  },
  'POST /v3/payments/:id/refunds': {
    prepare: async (on, account) => ({ method: 'POST', path: `/v3/payments/${await paid(on, account)}/refunds`, json: { amount: 100 } }),
    owned: true,
  },
  'GET /v3/predict': {
    prepare: async () => ({
      method: 'GET',
      path: `/v3/predict?${new URLSearchParams({ payer_email: 'payer@example.com', bank_id: 'Bawdf', amount: '1000', currency: 'CLP' })}`,
    }),
  },
  'POST /v3/receivers': {
    prepare: async () => ({ method: 'POST', path: '/v3/receivers', json: validReceiver }),
    check: async (res, account, on) => expect(await parentOf(on, res.body.receiver_id)).toBe(account.receiver_id),
  },
  'GET /v3/merchants/:id/paymentMethods': {
    prepare: async (_on, account) => ({ method: 'GET', path: `/v3/merchants/${account.receiver_id}/paymentMethods` }),
    owned: true,
  },
  ...v2Endpoints('/2.0'),
  ...v2Endpoints('/api/2.0'),
  'GET /quipu/v1/notifications': {
    prepare: async (on, account) => ({ method: 'GET', path: `/quipu/v1/notifications?payment_id=${(await notified(on, account)).paymentId}` }),
    check: (res, account) => expect(res.body.notifications).toEqual([expect.objectContaining({ receiver_id: account.receiver_id })]),
  },
  'GET /quipu/v1/notifications/:id': {
    prepare: async (on, account) => ({ method: 'GET', path: `/quipu/v1/notifications/${await notificationOf(on, account)}` }),
    check: (res, account) => expect(res.body.receiver_id).toBe(account.receiver_id),
    owned: true,
  },
  'POST /quipu/v1/notifications/:id/resend': {
    prepare: async (on, account) => ({ method: 'POST', path: `/quipu/v1/notifications/${await notificationOf(on, account)}/resend` }),
    owned: true,
  },
  'GET /quipu/v1/events': {
    prepare: async (on, account) => ({ method: 'GET', path: `/quipu/v1/events?subject_id=${(await notified(on, account)).paymentId}` }),
    check: (res, account) => expect(res.body.events).toEqual([expect.objectContaining({ receiver_id: account.receiver_id })]),
  },
  'GET /quipu/v1/events/:id': {
    prepare: async (on, account) => ({ method: 'GET', path: `/quipu/v1/events/${await notificationOf(on, account)}` }),
    check: (res, account) => expect(res.body.receiver_id).toBe(account.receiver_id),
    owned: true,
  },
  'POST /quipu/v1/events/:id/resend': {
    prepare: async (on, account) => ({ method: 'POST', path: `/quipu/v1/events/${await notificationOf(on, account)}/resend` }),
    owned: true,
  },
  'GET /quipu/v1/emails': {
    prepare: async (on, account) => ({ method: 'GET', path: `/quipu/v1/emails?payment_id=${await emailed(on, account)}` }),
    check: (res, account) => expect(res.body.emails).toEqual([expect.objectContaining({ receiver_id: account.receiver_id })]),
  },
  'GET /quipu/v1/emails/:id': {
    prepare: async (on, account) => ({ method: 'GET', path: `/quipu/v1/emails/${await emailOf(on, account)}` }),
    check: (res, account) => expect(res.body.receiver_id).toBe(account.receiver_id),
    owned: true,
  },
  'GET /quipu/v1/payments': {
    prepare: async (on, account) => ({ method: 'GET', path: `/quipu/v1/payments?q=${await pending(on, account)}` }),
    check: (res, account) => expect(res.body.items).toEqual([expect.objectContaining({ receiver_id: account.receiver_id })]),
  },
  'POST /quipu/v1/payments/:id/mark-paid': {
    prepare: async (on, account) => ({ method: 'POST', path: `/quipu/v1/payments/${await pending(on, account)}/mark-paid` }),
    owned: true,
  },
  'POST /v1/automatic-payment/subscription': {
    prepare: async () => ({ method: 'POST', path: '/v1/automatic-payment/subscription', json: NEW_SUBSCRIPTION }),
    check: async (res, account, on) =>
      expect(
        (await on.ctx.db.selectFrom('subscriptions').select('receiver_id').where('subscription_id', '=', res.body.subscription_id).executeTakeFirstOrThrow())
          .receiver_id,
      ).toBe(account.receiver_id),
  },
  'GET /v1/automatic-payment/subscription/:id': {
    prepare: async (on, account) => ({ method: 'GET', path: `/v1/automatic-payment/subscription/${await subscription(on, account)}` }),
    owned: true,
  },
  'GET /v1/automatic-payment/subscription-status': {
    prepare: async (on, account) => ({ method: 'GET', path: `/v1/automatic-payment/subscription-status?subscription_id=${await subscription(on, account)}` }),
    owned: true,
  },
  // Another account's subscription is refused as a field of the charge (400), not as a resource.
  'POST /v1/automatic-payment/charge-intent': {
    prepare: async (on, account) => ({ method: 'POST', path: '/v1/automatic-payment/charge-intent', json: newCharge(await enabledSubscription(on, account)) }),
    check: async (res, account, on) => expect(await ownerOf(on, res.body.payment_id)).toBe(account.receiver_id),
  },
  'POST /v1/descriptor/payment': {
    prepare: async () => ({ method: 'POST', path: '/v1/descriptor/payment', json: NEW_DESCRIPTOR }),
    check: async (res, account, on) => expect(await operationOwnerOf(on, res.body.operation.id)).toBe(account.receiver_id),
  },
  'GET /quipu/v1/operations/:id': {
    prepare: async (on, account) => ({ method: 'GET', path: `/quipu/v1/operations/${await operation(on, account)}` }),
    check: async (res, account, on) => {
      expect(res.body.result).toBe('CONTINUE');
      expect(await operationOwnerOf(on, res.body.operationId)).toBe(account.receiver_id);
    },
    owned: true,
  },
  'GET /sandbox/descriptors/:id': {
    prepare: async (on, account) => ({ method: 'GET', path: `/sandbox/descriptors/${await operation(on, account)}` }),
    check: (res, account) =>
      expect(res.body).toEqual(
        expect.objectContaining({ receiver_id: account.receiver_id, params: expect.objectContaining({ amount: NEW_DESCRIPTOR.params.amount }) }),
      ),
    owned: true,
  },
  'GET /sandbox/clock': { prepare: async () => ({ method: 'GET', path: '/sandbox/clock' }) },
  'POST /sandbox/clock': { prepare: async () => ({ method: 'POST', path: '/sandbox/clock', json: { advance: '1s' } }) },
  'POST /sandbox/clock/reset': { prepare: async () => ({ method: 'POST', path: '/sandbox/clock/reset' }) },
  'GET /sandbox/faults': { prepare: async () => ({ method: 'GET', path: '/sandbox/faults' }) },
  'PUT /sandbox/faults': { prepare: async () => ({ method: 'PUT', path: '/sandbox/faults', json: { seed: 1, notifications: { out_of_order: true } } }) },
  'DELETE /sandbox/faults': { prepare: async () => ({ method: 'DELETE', path: '/sandbox/faults' }), status: 204 },
  'POST /sandbox/demobank/payments/:id/:outcome': {
    prepare: async (on, account) => ({ method: 'POST', path: `/sandbox/demobank/payments/${await uncertain(on, account)}/fail` }),
    owned: true,
  },
  'POST /sandbox/demobank/charges/:id/:decision': {
    prepare: async (on, account) => ({ method: 'POST', path: `/sandbox/demobank/charges/${await charge(on, account)}/settle` }),
    owned: true,
  },
  'POST /sandbox/demobank/subscriptions/:id/:decision': {
    prepare: async (on, account) => ({ method: 'POST', path: `/sandbox/demobank/subscriptions/${await enabledSubscription(on, account)}/revoke` }),
    check: (res) => expect(res.body.status).toBe('DISABLED'),
    owned: true,
  },
  'POST /sandbox/scenarios/:id/run': {
    prepare: async () => ({ method: 'POST', path: '/sandbox/scenarios/transfer-pays/run' }),
    check: async (res, account, on) => expect(await ownerOf(on, res.body.payment.payment_id)).toBe(account.receiver_id),
  },
  'POST /sandbox/institutions/:bank_id/users/:rut/credential-change': {
    prepare: async () => ({ method: 'POST', path: '/sandbox/institutions/Bawdf/users/11111111-1/credential-change' }),
    check: (res) => expect(res.body.revoked_tokens).toEqual(expect.any(Number)),
  },
};

const ROUTES = Object.keys(ENDPOINTS).sort();
const OWNED = ROUTES.filter((route) => ENDPOINTS[route]!.owned);

function send(on: TestServer, request: Call, headers: Record<string, string>): Promise<JsonResponse> {
  if (request.form)
    return call(on.baseUrl, request.method, request.path, {
      headers: { ...headers, 'content-type': FORM },
      rawBody: new URLSearchParams(request.form).toString(),
    });
  return call(on.baseUrl, request.method, request.path, { headers, body: request.json });
}

/** A token as the server signed it, with its signature broken. */
const tampered = (token: string) => `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;

let server: TestServer;
let retired: TestServer;
let account: TestAccount;
let other: TestAccount;
let token: string;
let otherToken: string;
let retiredAccount: TestAccount;
let retiredToken: string;

beforeAll(async () => {
  server = await startTestServer();
  account = await server.account(FEATURES);
  other = await server.account(FEATURES);
  token = await clientCredentialsToken(server, account);
  otherToken = await clientCredentialsToken(server, other);
  retired = await startTestServer({ API_KEYS_RETIRED: 'true' });
  retiredAccount = await retired.account(FEATURES);
  retiredToken = await clientCredentialsToken(retired, retiredAccount);
});
afterAll(async () => {
  await server?.close();
  await retired?.close();
});

async function expectSuccess(on: TestServer, endpoint: Endpoint, res: JsonResponse, owner: TestAccount): Promise<void> {
  expect(res.status, JSON.stringify(res.body)).toBe(endpoint.status ?? 200);
  await endpoint.check?.(res, owner, on);
}

describe('the endpoints that authenticate a merchant', () => {
  it('are exactly the routes of the table: every route is probed without credentials', async () => {
    const routes = registeredRoutes(server.app).filter((route) => route.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(ROUTES.length);
    const found: string[] = [];
    for (const route of routes) {
      const res = await call(server.baseUrl, route.method, concretePath(route.url));
      if (res.status === 401 && res.headers.get('www-authenticate')?.startsWith('Bearer ')) found.push(`${route.method} ${route.url}`);
    }
    expect(found.sort()).toEqual(ROUTES);
  });

  it('leave out the dashboard: a bearer token opens none of its pages, which send to the sign-in form', async () => {
    const pages = registeredRoutes(server.app).filter(
      (route) => route.method === 'GET' && route.url.startsWith('/dashboard/') && !/sign-in|assets/.test(route.url),
    );
    expect(pages.map((route) => route.url)).toContain('/dashboard/operations/:id');
    for (const route of pages) {
      const res = await fetch(`${server.baseUrl}${concretePath(route.url)}`, { headers: bearer(token), redirect: 'manual' });
      expect(res.status, route.url).toBe(303);
      expect(res.headers.get('location'), route.url).toBe('/dashboard/sign-in');
    }
  });
});

describe.each(ROUTES)('%s', (route) => {
  const endpoint = ENDPOINTS[route]!;

  it('accepts a bearer token and acts as the token’s account', async () => {
    const request = await endpoint.prepare(server, account);
    await expectSuccess(server, endpoint, await send(server, request, bearer(token)), account);
  });

  it('refuses a bad token with a bare 401 and the invalid_token challenge', async () => {
    const res = await send(server, await endpoint.prepare(server, account), bearer(tampered(token)));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 401, message: 'Invalid or expired access token: get a new one from POST /oauth2/token' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="quipu", error="invalid_token"');
  });

  it('refuses an API key and a bearer token together with 400', async () => {
    const res = await send(server, await endpoint.prepare(server, account), { 'x-api-key': account.api_key, ...bearer(token) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'x-api-key', message: expect.any(String) }]);
  });

  it('with API keys retired, refuses x-api-key with the clear error, and the bearer token works', async () => {
    const request = await endpoint.prepare(retired, retiredAccount);
    const refused = await send(retired, request, { 'x-api-key': retiredAccount.api_key });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('API keys are retired on this server: authenticate with Authorization: Bearer <access token> from POST /oauth2/token');
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="quipu"');
    await expectSuccess(retired, endpoint, await send(retired, request, bearer(retiredToken)), retiredAccount);
  });
});

describe.each(OWNED)('%s', (route) => {
  it('does not let another account’s token reach the account’s resource', async () => {
    const res = await send(server, await ENDPOINTS[route]!.prepare(server, account), bearer(otherToken));
    expect(res.status).toBe(404);
  });
});
