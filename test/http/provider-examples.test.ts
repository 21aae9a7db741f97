// Every request the provider's documentation prints, as the reference facts quote it (the v2
// signature test vectors, the automatic payment and descriptor pages, the OAuth parameters) and as
// the stored v3 OpenAPI document gives it (each field's example), is sent as printed to a real
// server and accepted; what it creates shows what was sent. Only what cannot run here as printed
// is replaced, and each row says what and why: ids of objects that must exist on this server,
// dates that have passed, credentials of this server's accounts.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payWithDemoBank } from '../../src/app/pay-with-demobank.js';
import { s256Challenge } from '../../src/domain/oauth-pkce.js';
import { client } from '../helpers/http.js';
import { authorizeParams, basicAuth, clientCredentialsToken, FORM, PageClient, redirectParams, registerRedirectUris } from '../helpers/oauth.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createSubscriptionOver, signAtDemoBank } from '../helpers/subscriptions.js';
import { CLIENTS, signWith } from '../helpers/v2-clients.js';

const PROVIDER_FACTS = 'reference/provider-facts.md';
const AUTOMATIC_FACTS = 'reference/automatic-payments-facts.md';
const OPENAPI = 'spec/khipu-v3-openapi.json';
const INTERFACE = 'spec/interface.md';

const CALLBACK = 'https://client.example/callback';
// RFC 7636's own example verifier.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

const spec = JSON.parse(fs.readFileSync(new URL('../../spec/khipu-v3-openapi.json', import.meta.url), 'utf8'));

/** A request body as the provider's reference renders it: each field with its own example. */
function examplesOf(schema: string): Record<string, unknown> {
  const properties: Record<string, { example: unknown }> = spec.components.schemas[schema].properties;
  return Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, field.example]));
}

let server: TestServer;
/** The v2 test vectors' receiver (1234, secret `secret-key`): an integrator with every feature a printed request needs. */
let merchant: TestAccount;
/**
 * What the full payment example asks of its account: a receiver of an integrator (integrator_fee)
 * that collects for other merchants (psp_client_merchant_name), signs contracts (contract_url) and
 * has the example's responsible_user_email among its users.
 */
let pspClient: TestAccount;

beforeAll(async () => {
  // The v2 test vectors sign https://khipu.com/api/2.0/...: served under that public base URL, the
  // printed signature is valid here as printed.
  server = await startTestServer({ PUBLIC_BASE_URL: 'https://khipu.com' });
  merchant = await server.account({ fixed: { receiverId: 1234, secret: 'secret-key' }, features: { integrator: true, refunds: true, confirm: true } });
  pspClient = await server.account({ parentReceiverId: merchant.receiver_id, features: { psp: true, contractUrl: true }, users: ['responsible@email.com'] });
  await registerRedirectUris(server, merchant, [CALLBACK]);
});
afterAll(async () => server?.close());

const api = () => client(server.baseUrl, merchant.api_key);

async function newPayment(): Promise<string> {
  const created = await api().post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'For a printed example' });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

async function paidPayment(): Promise<string> {
  const id = await newPayment();
  await payWithDemoBank(server.ctx, id, 'pay');
  return id;
}

async function enabledSubscription(): Promise<string> {
  const id = await createSubscriptionOver(api());
  await signAtDemoBank(server.ctx, id);
  return id;
}

/** The printed date, as printed but in the coming year. */
const comingYear = (printed: string) => printed.replace(/^\d{4}/, String(new Date().getUTCFullYear() + 1));

interface Answer {
  status: number;
  location: string | null;
  body: any;
}

interface Example {
  /** Where it is printed: file § section. */
  quoted: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** The body, or the query string's parameters, as printed. */
  body?: Record<string, unknown>;
  encoding: 'json' | 'form' | 'query' | 'none';
  auth: 'x-api-key' | 'v2-signature' | 'bearer' | 'basic' | 'none';
  /** The Authorization header as printed, sent rather than computed. */
  authorization?: string;
  /** Sent by `pspClient` rather than `merchant`. */
  byPspClient?: true;
  /** The replacements needed to run at all. */
  adjust?: (printed: Example) => Promise<Partial<Example>>;
  /** Accepted otherwise than with a 2xx: the authorization endpoint redirects the browser. */
  accepted?: (res: Answer) => boolean;
  /** What the answer, or what it created, shows of what was sent. */
  echoes?: (res: Answer, sent: Example, account: TestAccount) => Promise<void>;
}

const textPairs = (body: Record<string, unknown> = {}): [string, string][] => Object.entries(body).map(([k, v]) => [k, String(v)]);

async function send(e: Example, account: TestAccount): Promise<Answer> {
  const pairs = textPairs(e.body);
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (e.encoding === 'json') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(e.body);
  } else if (e.encoding === 'form') {
    headers['content-type'] = FORM;
    body = new URLSearchParams(pairs).toString();
  }
  if (e.auth === 'x-api-key') headers['x-api-key'] = account.api_key;
  if (e.auth === 'basic') headers.authorization = basicAuth(account);
  if (e.auth === 'bearer') headers.authorization = `Bearer ${await clientCredentialsToken(server, account)}`;
  if (e.auth === 'v2-signature') {
    const signed = e.encoding === 'json' ? [] : pairs;
    headers.authorization =
      e.authorization ?? `${account.receiver_id}:${signWith(CLIENTS.dotnet, account.secret, e.method, server.config.publicBaseUrl + e.path, signed)}`;
  }
  const query = e.encoding === 'query' ? `?${new URLSearchParams(pairs)}` : '';
  const res = await fetch(`${server.baseUrl}${e.path}${query}`, { method: e.method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // a page, not JSON: keep the text
  }
  return { status: res.status, location: res.headers.get('location'), body: parsed };
}

const exchange = (e: Example, res: Answer) =>
  `${e.method} ${e.path} (${e.encoding}, ${e.auth})\n${e.body === undefined ? '' : JSON.stringify(e.body)}\n→ ${res.status} ${typeof res.body === 'string' ? res.body : JSON.stringify(res.body)}`;

/** The payment a create answered with carries the printed subject, amount and what else the payment shows of its request. */
async function echoesPayment(res: Answer, sent: Example, account: TestAccount): Promise<void> {
  const payment = (await client(server.baseUrl, account.api_key).get(`/v3/payments/${res.body.payment_id}`)).body;
  const shown = ['subject', 'currency', 'transaction_id', 'custom', 'body', 'return_url', 'cancel_url', 'picture_url', 'notify_url'].filter(
    (f) => sent.body![f] !== undefined,
  );
  expect(payment).toMatchObject({ amount: Number(sent.body!.amount), ...Object.fromEntries(shown.map((f) => [f, String(sent.body![f])])) });
}

const PAYMENT_EXAMPLE = examplesOf('payment-post-payment');
/**
 * The full payment example's replacements: its dates have passed (a payment cannot expire, nor be
 * submitted, in the past), so they keep their printed form in the coming year; collect_account_uuid
 * must be one of the account's own collection accounts.
 */
const runnablePayment = async (printed: Example) => ({
  body: {
    ...printed.body,
    expires_date: comingYear(printed.body!.expires_date as string),
    confirm_timeout_date: comingYear(printed.body!.confirm_timeout_date as string),
    collect_account_uuid: pspClient.merchant.collectAccounts[0],
  },
});

// The values the automatic payment and descriptor pages print (docs.khipu.com, the pages the facts
// name), of which the facts quote some: service_reference, notify_api_version, bank, the two
// target_account examples.
const CHARGE_EXAMPLE = {
  subscription_id: '13a0f1aa-5e47-4894-aa8b-282dd19593ec',
  amount: 10000,
  subject: 'Charge Service XYZ Id 11.222.333-0',
  body: 'Service XYZ - November 2022 - Amount: $10.000',
  error_response_url: 'https://my-domain.biz/charge-error-api',
  custom: 'Custom information content.',
  transaction_id: 'INVOICE-23ffcfbe1e4a4d1c9dc631fe70bddaa0',
  notify_url: 'https://my-domain.biz/charge-notify-api',
  notify_api_version: '1.3',
};
/** The printed subscription id is no subscription here: an ENABLED one of the account, whose max_amount covers the printed 10000. */
const onEnabledSubscription = async (printed: Example) => ({ body: { ...printed.body, subscription_id: await enabledSubscription() } });

const SUBSCRIPTION_EXAMPLE = {
  name: 'Service XYZ Id 11.222.333-0',
  email: 'personal.email@gmail.com',
  max_amount: 1000,
  currency: 'CLP',
  notify_url: 'https://my-domain.biz/subscription-notify-api',
  return_url: 'https://my-domain.biz/subscription-result',
  cancel_url: 'https://my-domain.biz/subscription-cancel',
};

async function echoesSubscription(res: Answer, sent: Example): Promise<void> {
  expect(res.body.redirect_url).toContain(res.body.subscription_id);
  const status = (await api().get(`/v1/automatic-payment/subscription/${res.body.subscription_id}`)).body;
  expect(status).toMatchObject({
    status: 'DISABLED',
    developer: true,
    ...(sent.body!.service_reference ? { service_reference: sent.body!.service_reference } : {}),
  });
}

const DESCRIPTOR_EXAMPLE = {
  bank: 'dSXgfesd',
  params: {
    subject: 'Some transfer example',
    amount: 1000,
    currency_code: 'CLP',
    payer_email: 'someone@example.com',
    payer_name: 'Jane Doe',
    target_account_bank: 'Awesome Bank',
    target_account_alias: 'My friend',
    target_account_name: 'John Doe',
    target_account_number: 123459876,
    // Its check digit is not the RUT's (12.345.678-5): printed so, it is what a merchant copies.
    target_account_personal_identifier: '12.345.678-9',
  },
};

const echoesOperation = async (res: Answer) =>
  expect(res.body.operation).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), description: expect.any(String) });

/** The printed payment id is no payment here: `id` of the account. */
const withPaymentId = (path: string, id: string) => path.replace('gqzdy6chjne9', id);

const EXAMPLES: Example[] = [
  // The v2 signature test vectors: receiver 1234, secret `secret-key`.
  {
    quoted: `${PROVIDER_FACTS} §1 test vector: create`,
    method: 'POST',
    path: '/api/2.0/payments',
    body: { subject: 'ejemplo de compra', amount: '1000', currency: 'CLP' },
    encoding: 'form',
    auth: 'v2-signature',
    authorization: '1234:8b06e63d9666201586f62440ef4e382f2ffb5f1ce122ff87a6d9b3a3064d4aff',
    echoes: echoesPayment,
  },
  {
    quoted: `${PROVIDER_FACTS} §1 test vector: get by id`,
    method: 'GET',
    path: '/api/2.0/payments/gqzdy6chjne9',
    encoding: 'none',
    auth: 'v2-signature',
    // A payment of receiver 1234 in place of gqzdy6chjne9; so the URL, hence the hash, changes too.
    adjust: async (printed) => ({ path: withPaymentId(printed.path, await newPayment()) }),
    echoes: async (res, sent) => expect(res.body.payment_id).toBe(sent.path.split('/').pop()),
  },
  {
    quoted: `${PROVIDER_FACTS} §1 test vector and §2 (notification 1.3): get by notification_token`,
    method: 'GET',
    path: '/api/2.0/payments',
    body: { notification_token: '9dec8aa176c5223026919b3b5579a4776923e646ff3be686b9e6b62ec042e91f' },
    encoding: 'query',
    auth: 'v2-signature',
    // The token of a payment of receiver 1234 in place of the printed one, which names none here; the hash changes with it.
    adjust: async () => ({ body: { notification_token: (await api().get(`/v3/payments/${await newPayment()}`)).body.notification_token } }),
    echoes: async (res, sent) => expect(res.body.notification_token).toBe(sent.body!.notification_token),
  },

  // The v3 instant payment API: each request body's fields with their examples.
  {
    quoted: `${OPENAPI} payment-post-payment: the required fields`,
    method: 'POST',
    path: '/v3/payments',
    body: { amount: 1000, currency: 'CLP', subject: 'Cobro de prueba' },
    encoding: 'json',
    auth: 'x-api-key',
    echoes: echoesPayment,
  },
  {
    quoted: `${OPENAPI} payment-post-payment: every field`,
    method: 'POST',
    path: '/v3/payments',
    body: PAYMENT_EXAMPLE,
    encoding: 'json',
    auth: 'x-api-key',
    byPspClient: true,
    adjust: runnablePayment,
    echoes: echoesPayment,
  },
  {
    quoted: `${OPENAPI} GET /v3/banks`,
    method: 'GET',
    path: '/v3/banks',
    encoding: 'none',
    auth: 'x-api-key',
    // The example bank of every request: Banco Estado.
    echoes: async (res) => expect(res.body.banks).toContainEqual(expect.objectContaining({ bank_id: 'SDdGj', name: 'Banco Estado' })),
  },
  {
    quoted: `${OPENAPI} GET /v3/payments/{id}`,
    method: 'GET',
    path: '/v3/payments/gqzdy6chjne9',
    encoding: 'none',
    auth: 'x-api-key',
    adjust: async (printed) => ({ path: withPaymentId(printed.path, await newPayment()) }),
    echoes: async (res, sent) => expect(res.body.payment_id).toBe(sent.path.split('/').pop()),
  },
  {
    quoted: `${OPENAPI} DELETE /v3/payments/{id}`,
    method: 'DELETE',
    path: '/v3/payments/gqzdy6chjne9',
    encoding: 'none',
    auth: 'x-api-key',
    // Only a pending payment may be deleted.
    adjust: async (printed) => ({ path: withPaymentId(printed.path, await newPayment()) }),
  },
  {
    quoted: `${OPENAPI} POST /v3/payments/{id}/confirm`,
    method: 'POST',
    path: '/v3/payments/gqzdy6chjne9/confirm',
    encoding: 'none',
    auth: 'x-api-key',
    // Only a paid payment has funds to deliver.
    adjust: async (printed) => ({ path: withPaymentId(printed.path, await paidPayment()) }),
  },
  {
    quoted: `${OPENAPI} payment-post-payment-refunds`,
    method: 'POST',
    path: '/v3/payments/gqzdy6chjne9/refunds',
    body: examplesOf('payment-post-payment-refunds'),
    encoding: 'json',
    auth: 'x-api-key',
    // A paid payment of 1000, the refund's printed amount.
    adjust: async (printed) => ({ path: withPaymentId(printed.path, await paidPayment()) }),
    echoes: async (res) => expect(res.body.message).toEqual(expect.any(String)),
  },
  {
    quoted: `${OPENAPI} GET /v3/predict (no example printed for its query: the document's examples of the same fields)`,
    method: 'GET',
    path: '/v3/predict',
    body: { payer_email: 'pagador@email.com', bank_id: 'SDdGj', amount: '1000', currency: 'CLP' },
    encoding: 'query',
    auth: 'x-api-key',
    echoes: async (res) => expect(res.body.result).toEqual(expect.any(String)),
  },
  {
    quoted: `${OPENAPI} receiver-post-receiver`,
    method: 'POST',
    path: '/v3/receivers',
    body: examplesOf('receiver-post-receiver'),
    encoding: 'json',
    auth: 'x-api-key',
    echoes: async (res) => expect(res.body).toEqual({ receiver_id: expect.anything(), secret: expect.any(String) }),
  },
  {
    quoted: `${OPENAPI} GET /v3/merchants/{id}/paymentMethods`,
    method: 'GET',
    path: '/v3/merchants/985101/paymentMethods',
    encoding: 'none',
    auth: 'x-api-key',
    // The account's own id in place of the document's example receiver_id.
    adjust: async () => ({ path: `/v3/merchants/${merchant.receiver_id}/paymentMethods` }),
    echoes: async (res) => expect(res.body.paymentMethods.length).toBeGreaterThan(0),
  },

  // The v2 API takes the same fields form-encoded, signed as the official clients sign.
  {
    quoted: `${INTERFACE} Payment-create request fields (v2 form), ${OPENAPI} examples`,
    method: 'POST',
    path: '/api/2.0/payments',
    body: PAYMENT_EXAMPLE,
    encoding: 'form',
    auth: 'v2-signature',
    byPspClient: true,
    adjust: runnablePayment,
    echoes: echoesPayment,
  },
  {
    quoted: `${INTERFACE} Receiver request fields (v2 form), ${OPENAPI} examples`,
    method: 'POST',
    path: '/api/2.0/receivers',
    body: examplesOf('receiver-post-receiver'),
    encoding: 'form',
    auth: 'v2-signature',
    echoes: async (res) => expect(res.body).toEqual({ receiver_id: expect.anything(), secret: expect.any(String) }),
  },
  {
    quoted: `${INTERFACE} v2 POST /2.0/payments/{id}/refunds (JSON), ${OPENAPI} example`,
    method: 'POST',
    path: '/api/2.0/payments/gqzdy6chjne9/refunds',
    body: examplesOf('payment-post-payment-refunds'),
    encoding: 'json',
    // The key every payment operation declares: the v2 clients' signature covers form parameters, not a JSON body.
    auth: 'x-api-key',
    adjust: async (printed) => ({ path: withPaymentId(printed.path, await paidPayment()) }),
    echoes: async (res) => expect(res.body.message).toEqual(expect.any(String)),
  },

  // The automatic payment API: the pages "Subscription creation", "Subscription status" and "Charge intent creation".
  {
    quoted: `${AUTOMATIC_FACTS} §1 Subscription creation: the page's request sample`,
    method: 'POST',
    path: '/v1/automatic-payment/subscription',
    body: SUBSCRIPTION_EXAMPLE,
    encoding: 'json',
    auth: 'x-api-key',
    echoes: echoesSubscription,
  },
  {
    quoted: `${AUTOMATIC_FACTS} §1 Subscription creation: with the optional fields (service_reference 12345678K)`,
    method: 'POST',
    path: '/v1/automatic-payment/subscription',
    body: {
      ...SUBSCRIPTION_EXAMPLE,
      service_reference: '12345678K',
      image_url: 'https://my-domain.biz/subscription-image.png',
      description: 'PAC subscription for automatic payment of products at your bank.',
    },
    encoding: 'json',
    auth: 'x-api-key',
    echoes: echoesSubscription,
  },
  {
    quoted: `${AUTOMATIC_FACTS} §1 Subscription status`,
    method: 'GET',
    path: '/v1/automatic-payment/subscription/{id}',
    encoding: 'none',
    auth: 'x-api-key',
    // A subscription of the account in place of {id}.
    adjust: async (printed) => ({ path: printed.path.replace('{id}', await enabledSubscription()) }),
    echoes: async (res) => expect(res.body).toMatchObject({ status: 'ENABLED', customer_bank_code: 'Bawdf' }),
  },
  {
    quoted: `${AUTOMATIC_FACTS} §0.2 Subscription status, older revision`,
    method: 'GET',
    path: '/v1/automatic-payment/subscription-status',
    body: { subscription_id: '{id}' },
    encoding: 'query',
    auth: 'x-api-key',
    // A subscription of the account in place of {id}.
    adjust: async () => ({ body: { subscription_id: await enabledSubscription() } }),
    echoes: async (res, sent) => expect(res.body).toMatchObject({ subscription_id: sent.body!.subscription_id, status: 'ENABLED' }),
  },
  {
    quoted: `${AUTOMATIC_FACTS} §1 Charge intent creation: every field (notify_api_version 1.3)`,
    method: 'POST',
    path: '/v1/automatic-payment/charge-intent',
    body: CHARGE_EXAMPLE,
    encoding: 'json',
    auth: 'x-api-key',
    adjust: onEnabledSubscription,
    echoes: async (res) => expect(res.body.payment_id).toMatch(/^[a-z0-9]{12}$/),
  },
  {
    quoted: `${AUTOMATIC_FACTS} §3 a community client: one URL for error_response_url and notify_url`,
    method: 'POST',
    path: '/v1/automatic-payment/charge-intent',
    body: { ...CHARGE_EXAMPLE, error_response_url: CHARGE_EXAMPLE.notify_url },
    encoding: 'json',
    auth: 'x-api-key',
    adjust: onEnabledSubscription,
    echoes: async (res) => expect(res.body.payment_id).toMatch(/^[a-z0-9]{12}$/),
  },

  // The operation descriptor API: the page "Create payment operation descriptor".
  {
    quoted: `${AUTOMATIC_FACTS} §4 Create payment operation descriptor: the page's request sample`,
    method: 'POST',
    path: '/v1/descriptor/payment',
    body: { bank: 'dSXgfesd', params: {} },
    encoding: 'json',
    auth: 'x-api-key',
    echoes: echoesOperation,
  },
  {
    quoted: `${AUTOMATIC_FACTS} §4 Create payment operation descriptor: every param (target_account_personal_identifier 12.345.678-9)`,
    method: 'POST',
    path: '/v1/descriptor/payment',
    body: DESCRIPTOR_EXAMPLE,
    encoding: 'json',
    auth: 'x-api-key',
    echoes: echoesOperation,
  },
  {
    quoted: `${AUTOMATIC_FACTS} §0.3 Create payment operation descriptor with a bearer token`,
    method: 'POST',
    path: '/v1/descriptor/payment',
    body: DESCRIPTOR_EXAMPLE,
    encoding: 'json',
    auth: 'bearer',
    echoes: echoesOperation,
  },

  // The authorization server: the parameters the interface prints; what it leaves to the client is the account's.
  {
    quoted: `${INTERFACE} Client credentials flow`,
    method: 'POST',
    path: '/oauth2/token',
    body: { grant_type: 'client_credentials' },
    encoding: 'form',
    auth: 'basic',
    echoes: async (res) => expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 31536000, access_token: expect.any(String) }),
  },
  ...(['query', 'form_post'] as const).map((mode): Example => ({
    quoted: `${INTERFACE} Authorization code flow, step 1 (response_mode ${mode})`,
    method: 'GET',
    path: '/oauth2/authorize',
    body: { response_type: 'code', response_mode: mode, scope: 'openid api' },
    encoding: 'query',
    auth: 'none',
    // The client's own: its id, a registered redirect_uri, DemoBank as the institution, state, nonce, custom and a PKCE challenge.
    adjust: async (printed) => ({
      body: authorizeParams(merchant, CALLBACK, {
        ...(printed.body as Record<string, string>),
        nonce: 'n-1',
        custom: 'order 42',
        code_challenge: s256Challenge(VERIFIER),
        code_challenge_method: 'S256',
      }),
    }),
    accepted: (res) => res.status === 303 && res.location!.startsWith('/oauth2/flows/'),
  })),
  {
    quoted: `${INTERFACE} Authorization code flow, step 2`,
    method: 'POST',
    path: '/oauth2/token',
    body: { grant_type: 'authorization_code' },
    encoding: 'form',
    auth: 'basic',
    // A code from a flow run at DemoBank, its redirect_uri, and the verifier of its challenge.
    adjust: async (printed) => {
      const done = await new PageClient(server.baseUrl).runFlow(
        authorizeParams(merchant, CALLBACK, { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' }),
      );
      return { body: { ...printed.body, code: redirectParams(done.location).code, redirect_uri: CALLBACK, code_verifier: VERIFIER } };
    },
    echoes: async (res) => expect(res.body).toMatchObject({ token_type: 'bearer', scope: 'openid api', id_token: expect.any(String) }),
  },
  {
    quoted: `${INTERFACE} Token rules, revoke`,
    method: 'POST',
    path: '/oauth2/revoke',
    body: { token: '{token}' },
    encoding: 'form',
    auth: 'basic',
    // An access token of the account in place of {token}.
    adjust: async () => ({ body: { token: await clientCredentialsToken(server, merchant) } }),
  },
];

describe("the provider documentation's example requests", () => {
  for (const printed of EXAMPLES) {
    it(`${printed.quoted}: ${printed.method} ${printed.path}`, async () => {
      const example = { ...printed, ...(await printed.adjust?.(printed)) };
      const account = example.byPspClient ? pspClient : merchant;
      const res = await send(example, account);
      const accepted = example.accepted?.(res) ?? (res.status >= 200 && res.status < 300);
      expect(accepted, exchange(example, res)).toBe(true);
      await example.echoes?.(res, example, account);
    });
  }
});
