// Never stricter than the provider (docs/validation-rules.md): a value that breaks only a rule of
// Quipu's own, where the provider would take it, is accepted and stored as sent; a developer-mode
// account hears of it in Quipu-Warnings (`field=message`, percent-encoded) and in the request's log
// line, a production account gets the same answer without the header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { DESCRIPTOR_PATH, NEW_DESCRIPTOR } from '../helpers/operations.js';
import { logLines, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { validReceiver } from '../helpers/receivers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { NEW_SUBSCRIPTION } from '../helpers/subscriptions.js';
import { type Params, v2Client } from '../helpers/v2-clients.js';
import { WARNINGS_HEADER, warningsOf } from '../helpers/warnings.js';

let server: TestServer;
let developer: TestAccount;
let production: TestAccount;
let pspDeveloper: TestAccount;
let pspProduction: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  // Integrators enabled for contracts, so that receivers and contract_url can be sent too.
  const features = { integrator: true, contractUrl: true };
  developer = await server.account({ features });
  production = await server.account({ developer: false, features });
  pspDeveloper = await server.account({ features: { psp: true } });
  pspProduction = await server.account({ developer: false, features: { psp: true } });
});
afterAll(async () => server?.close());

const withParams = (params: Record<string, unknown>) => ({ ...NEW_DESCRIPTOR, params: { ...NEW_DESCRIPTOR.params, ...params } });

interface Doubtful {
  what: string;
  /** Sent by payment-service-provider accounts. */
  psp?: true;
  /** Sends the request as `account`. */
  send: (account: TestAccount) => Promise<JsonResponse>;
  /** What the accepted resource holds, found from the answer. */
  read: (answer: JsonResponse) => Promise<unknown>;
  stored: Record<string, unknown>;
  warnings: Record<string, string>;
}

const json = (path: string, body: unknown) => (account: TestAccount) => client(server.baseUrl, account.api_key).post(path, body);
const v2Form = (path: string, form: Params) => (account: TestAccount) =>
  v2Client('php', account, { networkUrl: server.baseUrl, signedBase: `${server.config.publicBaseUrl}/2.0`, prefix: '/2.0' }).request('POST', path, { form });

const operationParams = async (answer: JsonResponse) =>
  (await client(server.baseUrl, developer.api_key).get(`/sandbox/descriptors/${answer.body.operation.id}`)).body;
const paymentRow = (answer: JsonResponse) =>
  server.ctx.db.selectFrom('payments').selectAll().where('payment_id', '=', answer.body.payment_id).executeTakeFirstOrThrow();
const subscriptionRow = (answer: JsonResponse) =>
  server.ctx.db.selectFrom('subscriptions').selectAll().where('subscription_id', '=', answer.body.subscription_id).executeTakeFirstOrThrow();
const receiverProfile = async (answer: JsonResponse) => {
  const row = await server.ctx.db
    .selectFrom('merchants')
    .select('profile')
    .where('receiver_id', '=', Number(answer.body.receiver_id))
    .executeTakeFirstOrThrow();
  return JSON.parse(row.profile) as unknown;
};

const PAYMENT = { amount: 1000, currency: 'CLP', subject: 'Order 42' };
const PAST = '2020-01-01T00:00:00Z';

const DOUBTFUL: Doubtful[] = [
  {
    what: "the provider's own descriptor example: a RUT whose check digit does not match",
    send: json(DESCRIPTOR_PATH, withParams({ target_account_personal_identifier: '12.345.678-9' })),
    read: operationParams,
    stored: { params: expect.objectContaining({ target_account_personal_identifier: '12.345.678-9' }) },
    warnings: { 'params.target_account_personal_identifier': 'looks like a RUT whose check digit does not match' },
  },
  {
    what: 'descriptor params longer than 255 characters and an email Quipu cannot read (the contract gives params no rule)',
    send: json(DESCRIPTOR_PATH, withParams({ subject: 's'.repeat(300), payer_email: 'pagos at tienda', target_account_number: '9'.repeat(256) })),
    read: operationParams,
    stored: { params: expect.objectContaining({ subject: 's'.repeat(300), payer_email: 'pagos at tienda', target_account_number: '9'.repeat(256) }) },
    warnings: {
      'params.subject': 'must be at most 255 characters long',
      'params.payer_email': 'must be an email address',
      'params.target_account_number': 'must be at most 255 characters long',
    },
  },
  {
    what: 'a payment whose picture and contract are not http(s) URLs (only stored and echoed), born expired, with reminders but no email',
    send: json('/v3/payments', {
      ...PAYMENT,
      picture_url: 'cdn/shoe.png',
      contract_url: 'contracts/42.pdf',
      fixed_payer_personal_identifier: '11.111.111-1',
      expires_date: PAST,
      send_reminders: true,
    }),
    read: paymentRow,
    stored: { picture_url: 'cdn/shoe.png', contract_url: 'contracts/42.pdf', expires_at: Date.parse(PAST), send_reminders: 0, next_reminder_at: null },
    warnings: {
      picture_url: 'must be an absolute http or https URL',
      contract_url: 'must be an absolute http or https URL',
      expires_date: 'is in the past',
      send_reminders: 'is ignored without send_email',
    },
  },
  {
    what: 'a v2 payment born expired, with reminders but no email, a picture that is no URL',
    send: v2Form('/payments', { subject: 'Order 42', currency: 'CLP', amount: '1000', expires_date: PAST, send_reminders: 'true', picture_url: 'shoe.png' }),
    read: paymentRow,
    stored: { picture_url: 'shoe.png', expires_at: Date.parse(PAST), send_reminders: 0 },
    warnings: { expires_date: 'is in the past', send_reminders: 'is ignored without send_email', picture_url: 'must be an absolute http or https URL' },
  },
  {
    what: 'psp_client_merchant_name from an account that is no PSP: the contract says it does not apply',
    send: json('/v3/payments', { ...PAYMENT, psp_client_merchant_name: 'Shop' }),
    read: paymentRow,
    stored: { psp_client_merchant_name: null },
    warnings: { psp_client_merchant_name: 'is ignored: the account is not a payment-service-provider' },
  },
  {
    what: 'a PSP chain with a merchant name under 3 characters (the provider counts the whole value)',
    psp: true,
    send: json('/v3/payments', { ...PAYMENT, psp_client_merchant_name: 'PSP 1-> ab ->Client Name' }),
    read: paymentRow,
    stored: { psp_client_merchant_name: 'PSP 1-> ab ->Client Name' },
    warnings: { psp_client_merchant_name: 'has a name under 3 characters between its -> separators' },
  },
  {
    what: 'a receiver with an unknown bank and a bank account given in part (kept in its profile; Quipu never pays into it)',
    send: json('/v3/receivers', { ...validReceiver, bank_account_bank_id: 'Zzzzz', bank_account_number: '123' }),
    read: receiverProfile,
    stored: { bank_account_bank_id: 'Zzzzz', bank_account_number: '123' },
    warnings: { bank_account_bank_id: 'is not a known bank', bank_account_identifier: 'is missing from a bank account given in part' },
  },
  {
    what: 'a v2 receiver with a bank account given in part',
    send: v2Form('/receivers', { ...validReceiver, bank_account_number: '123' }),
    read: receiverProfile,
    stored: { bank_account_number: '123' },
    warnings: { bank_account_bank_id: 'is missing from a bank account given in part', bank_account_identifier: 'is missing from a bank account given in part' },
  },
  {
    what: 'a subscription description longer than 1024 characters (the provider gives it no limit)',
    send: json('/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, description: 'd'.repeat(1500) }),
    read: subscriptionRow,
    stored: { description: 'd'.repeat(1500) },
    warnings: { description: 'must be at most 1024 characters long' },
  },
];

describe.each(DOUBTFUL)('$what', (row) => {
  it('is accepted and stored as sent; a developer-mode account hears of it in Quipu-Warnings', async () => {
    const res = await row.send(row.psp ? pspDeveloper : developer);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(warningsOf(res)).toEqual(row.warnings);
    expect(await row.read(res)).toMatchObject(row.stored);
  });

  it('is accepted from a production account, without the header', async () => {
    const res = await row.send(row.psp ? pspProduction : production);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get(WARNINGS_HEADER)).toBeNull();
  });
});

it('a request with nothing doubtful has no Quipu-Warnings', async () => {
  const res = await client(server.baseUrl, developer.api_key).post(DESCRIPTOR_PATH, NEW_DESCRIPTOR);
  expect(res.status).toBe(200);
  expect(res.headers.get(WARNINGS_HEADER)).toBeNull();
});

describe('the request log line', () => {
  const processes = withServerProcesses();

  it('names the doubtful values at info level, under the request id', async () => {
    const { database, started } = processes;
    const quipu = await serveOnFreePort({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', RUN_WORKER: 'false' }, started);
    const apiKey = /api_key\s+(\S+)/.exec(await quipu.waitFor(/API reference/))![1]!;
    const body = withParams({ target_account_personal_identifier: '12.345.678-9' });
    const res = await call(quipu.baseUrl, 'POST', DESCRIPTOR_PATH, { apiKey, headers: { 'x-request-id': 'doubt-log-1' }, body });
    expect(res.status).toBe(200);
    const lines = () => logLines(quipu).filter((line) => line.reqId === 'doubt-log-1' && line.msg === 'request');
    await expect.poll(lines, { timeout: 5_000 }).toHaveLength(1);
    expect(lines()[0]).toMatchObject({
      level: 30,
      status: 200,
      warnings: [{ field: 'params.target_account_personal_identifier', message: 'looks like a RUT whose check digit does not match' }],
    });
  }, 60_000);
});
