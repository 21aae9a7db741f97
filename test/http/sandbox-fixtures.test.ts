// A sandbox account's fixtures (POST /sandbox/accounts `fixtures`): payments, subscriptions, charges
// and descriptors in the states asked for, each one checked through the public API as a merchant's
// test would read it; a bad fixture is a 400 naming its path and leaves no account nor anything of
// it; the format is docs/sandbox-fixtures.schema.json, the route's own schema.
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { SandboxFixturesSchema } from '../../src/http/sandbox/fixtures-schema.js';
import { SNAPSHOT_RECORDS } from '../../src/store/account-records.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, type Receiver, signedBy, startReceiver } from '../helpers/notification-receiver.js';
import { PayerSession, titleOf } from '../helpers/payer-session.js';
import { useTestServer } from '../helpers/server.js';
import { newCharge } from '../helpers/subscriptions.js';

const setup = useTestServer();
let worker: DeliveryWorker;
let receiver: Receiver;

beforeAll(async () => {
  worker = testWorker(setup.server);
  receiver = await startReceiver();
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
});

const sandbox = (body: unknown) => client(setup.server.baseUrl, '').post('/sandbox/accounts', body);

/** Creates an account with these fixtures (its notifications to the receiver); its API, and each fixture's answer by ref. */
async function withFixtures(fixtures: unknown, extra: Record<string, unknown> = {}) {
  const created = await sandbox({ notify_url: receiver.url, ...extra, fixtures });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const byRef = (kind: string) => Object.fromEntries((created.body.fixtures[kind] as { ref: string }[]).map((f) => [f.ref, f])) as Record<string, any>;
  return { account: created.body, api: client(setup.server.baseUrl, created.body.api_key), byRef };
}

/** How many rows each table of an account's records holds (DemoBank's books included): a refused request must leave these as they were. */
async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { table } of SNAPSHOT_RECORDS) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(setup.server.ctx.db);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

describe('fixtures of a sandbox account', () => {
  it('makes payments pending, verifying, done, reversed and expired, as the API and the payer page show them', async () => {
    const { account, api, byRef } = await withFixtures(
      {
        payments: [
          { ref: 'open', status: 'pending', amount: 1200, subject: 'Open order' },
          { ref: 'unsure', status: 'verifying' },
          { ref: 'paid', status: 'done', amount: 4500, transaction_id: 'INV-9' },
          { ref: 'refunded', status: 'reversed', amount: 700 },
          { ref: 'late', status: 'expired' },
        ],
      },
      { refunds: true },
    );
    const payments = byRef('payments');
    expect(Object.values(payments).map((p) => [p.ref, p.status, p.status_detail])).toEqual([
      ['open', 'pending', 'pending'],
      ['unsure', 'verifying', 'pending'],
      ['paid', 'done', 'normal'],
      ['refunded', 'done', 'reversed'],
      ['late', 'pending', 'pending'],
    ]);
    const read = async (ref: string) => (await api.get(`/v3/payments/${payments[ref].payment_id}`)).body;
    const now = Date.parse((await api.get('/sandbox/clock')).body.now);

    expect(await read('open')).toMatchObject({ status: 'pending', status_detail: 'pending', amount: 1200, subject: 'Open order' });
    expect(Date.parse((await read('open')).expires_date)).toBeGreaterThan(now);
    expect(await read('unsure')).toMatchObject({ status: 'verifying', status_detail: 'pending' });
    expect(await read('paid')).toMatchObject({ status: 'done', status_detail: 'normal', amount: 4500, transaction_id: 'INV-9', bank: 'DemoBank' });
    expect(await read('refunded')).toMatchObject({ status: 'done', status_detail: 'reversed' });
    const late = await read('late');
    expect(late).toMatchObject({ status: 'pending', status_detail: 'pending' });
    expect(Date.parse(late.expires_date)).toBeLessThan(now);
    // Its payer can no longer pay it.
    expect(titleOf(await new PayerSession(setup.server.baseUrl).get(`/payment/simplified/${payments.late.payment_id}`))).toBe('Cobro vencido');

    // The paid one was notified, signed with the account's secret, as any payment paid at DemoBank.
    await receiver.waitFor((requests) => requests.some((r) => r.body.includes(payments.paid.payment_id)));
    const notification = receiver.requests.find((r) => r.body.includes(payments.paid.payment_id))!;
    expect(signedBy(account.secret, notification)).toBe(true);
    // The list holds them all, and nothing else.
    const listed = (await api.get('/quipu/v1/payments')).body.items.map((p: { payment_id: string }) => p.payment_id);
    expect(listed.sort()).toEqual(
      Object.values(payments)
        .map((p) => p.payment_id)
        .sort(),
    );
  });

  it('makes subscriptions created, signed, enabled, rejected and revoked, and charges due, paid and failed on an enabled one', async () => {
    const { api, byRef } = await withFixtures({
      subscriptions: [
        { ref: 'new', status: 'created' },
        { ref: 'waiting', status: 'signed' },
        { ref: 'gym', status: 'enabled', max_amount: 30000 },
        { ref: 'refused', status: 'rejected' },
        { ref: 'gone', status: 'revoked' },
      ],
      charges: [
        { ref: 'november', subscription: 'gym', status: 'due', amount: 9000 },
        { ref: 'october', subscription: 'gym', status: 'paid' },
        { ref: 'september', subscription: 'gym', status: 'failed' },
      ],
    });
    const subscriptions = byRef('subscriptions');
    const status = async (ref: string) => (await api.get(`/v1/automatic-payment/subscription/${subscriptions[ref].subscription_id}`)).body.status;
    expect([await status('new'), await status('waiting'), await status('gym'), await status('refused'), await status('gone')]).toEqual([
      'DISABLED',
      'SIGNED',
      'ENABLED',
      'DISABLED',
      'DISABLED',
    ]);
    expect(Object.values(subscriptions).map((s) => s.status)).toEqual(['DISABLED', 'SIGNED', 'ENABLED', 'DISABLED', 'DISABLED']);
    // The three DISABLED ones are told apart by why a charge on each is refused.
    const refusal = async (ref: string) => {
      const charge = await api.post('/v1/automatic-payment/charge-intent', newCharge(subscriptions[ref].subscription_id));
      expect(charge.status).toBe(400);
      return JSON.stringify(charge.body);
    };
    expect(await refusal('new')).toContain('the payer has not signed its mandate yet');
    expect(await refusal('waiting')).toContain('its bank has not activated the mandate yet');
    expect(await refusal('refused')).toContain('the bank rejected its mandate');
    expect(await refusal('gone')).toContain('the payer revoked its mandate');

    const charges = byRef('charges');
    expect(Object.values(charges).every((c) => c.subscription_id === subscriptions.gym.subscription_id)).toBe(true);
    const payment = async (ref: string) => (await api.get(`/v3/payments/${charges[ref].payment_id}`)).body;
    expect(await payment('november')).toMatchObject({ status: 'pending', amount: 9000 });
    expect(await payment('october')).toMatchObject({ status: 'done', status_detail: 'normal' });
    expect(await payment('september')).toMatchObject({ status: 'pending', status_detail: 'pending' });
    // The failed one told its error_response_url (the account's notify_url by default), signed.
    await receiver.waitFor((requests) => requests.some((r) => r.body.includes('"transaction_id":"september"')));
    expect(JSON.parse(receiver.requests.find((r) => r.body.includes('"transaction_id":"september"'))!.body)).toMatchObject({
      subscription_id: subscriptions.gym.subscription_id,
      transaction_id: 'september',
    });
    // The due one is a real charge: DemoBank settles it when asked.
    const settled = await api.post(`/sandbox/demobank/charges/${charges.november.payment_id}/settle`);
    expect(settled.body).toMatchObject({ status: 'done', status_detail: 'normal' });
  });

  it('issues operation descriptors with the params given over the defaults', async () => {
    const { api, byRef } = await withFixtures({
      descriptors: [{ ref: 'app-transfer', params: { amount: 2500, subject: 'Cuota' } }, { ref: 'plain' }],
    });
    const descriptors = byRef('descriptors');
    const opened = (await api.get(`/sandbox/descriptors/${descriptors['app-transfer'].operation_id}`)).body;
    expect(opened).toMatchObject({ bank: 'Bawdf', params: { amount: 2500, subject: 'Cuota', currency_code: 'CLP' }, state: 'issued', result: 'CONTINUE' });
    const byDescriptor = await api.get(`/sandbox/descriptors/${encodeURIComponent(descriptors.plain.description)}`);
    expect(byDescriptor.body).toMatchObject({ operation_id: descriptors.plain.operation_id, params: { amount: 1000, subject: 'Fixture plain' } });
    expect((await api.get(`/quipu/v1/operations/${descriptors.plain.operation_id}`)).body).toMatchObject({ result: 'CONTINUE' });
  });

  it('refuses bad fixtures with one 400 naming each by its path, and leaves no account nor anything of it', async () => {
    // The earlier tests' messages delivered first: what is counted changes only by this test's requests.
    await eventually(
      () => setup.server.ctx.db.selectFrom('messages').select('message_id').where('status', '=', 'pending').execute(),
      (pending) => pending.length === 0,
    );
    const before = await rowCounts();
    const refused = async (body: Record<string, unknown>) => {
      const answer = await sandbox({ notify_url: receiver.url, ...body });
      expect(answer.status).toBe(400);
      return answer.body.errors as { field: string; message: string }[];
    };
    // The format: an unknown state, an unknown member.
    expect(await refused({ fixtures: { payments: [{ ref: 'a', status: 'paid' }], subscriptions: [{ ref: 'b', status: 'enabled', colour: 'red' }] } })).toEqual([
      expect.objectContaining({ field: 'fixtures.payments.0.status' }),
      expect.objectContaining({ field: 'fixtures.subscriptions.0.colour' }),
    ]);
    // The request as a whole: a ref used twice, a charge on a subscription that is not enabled, a refund the account may not make.
    expect(
      await refused({
        fixtures: {
          payments: [
            { ref: 'x', status: 'reversed' },
            { ref: 'x', status: 'done' },
          ],
          subscriptions: [{ ref: 's', status: 'signed' }],
          charges: [{ ref: 'c', subscription: 's', status: 'paid' }],
        },
      }),
    ).toEqual([
      { field: 'fixtures.payments.1.ref', message: 'is already the ref of fixtures.payments.0' },
      { field: 'fixtures.charges.0.subscription', message: 'must be an enabled subscription (s is signed)' },
      expect.objectContaining({ field: 'fixtures.payments.0.status' }),
    ]);
    // A use case's refusal midway: the first payment was paid and notified, the second is refused;
    // the account and what was made of it are removed.
    expect(
      await refused({
        fixtures: {
          payments: [
            { ref: 'fine', status: 'done' },
            { ref: 'bad', status: 'pending', currency: 'XYZ' },
          ],
        },
      }),
    ).toEqual([expect.objectContaining({ field: 'fixtures.payments.1.currency' })]);
    expect(
      await refused({
        fixtures: {
          subscriptions: [{ ref: 'gym', status: 'enabled', max_amount: 5000 }],
          charges: [{ ref: 'big', subscription: 'gym', status: 'paid', amount: 6000 }],
        },
      }),
    ).toEqual([expect.objectContaining({ field: 'fixtures.charges.0.amount' })]);
    // Every problem of a request in one answer, whichever check finds it: the schema, the request as
    // a whole, the API's rules of each fixture's request (docs/testing-in-ci.md's four and more).
    expect(
      await refused({
        fixtures: {
          payments: [
            { ref: 'p', status: 'paid' },
            { ref: 'p', status: 'done' },
            { ref: 'q', status: 'done', currency: 'XYZ' },
            { ref: 'r', status: 'pending', amount: -5 },
          ],
          subscriptions: [
            { ref: 'gym', status: 'enabled', email: 'not an email' },
            { ref: 'pool', status: 'enabled', max_amount: 5000 },
          ],
          charges: [
            { ref: 'c', subscription: 'nowhere', status: 'paid' },
            { ref: 'big', subscription: 'pool', status: 'paid', amount: 6000 },
          ],
        },
      }),
    ).toEqual([
      { field: 'fixtures.payments.0.status', message: 'must be one of pending, verifying, done, reversed, expired' },
      { field: 'fixtures.payments.1.ref', message: 'is already the ref of fixtures.payments.0' },
      { field: 'fixtures.charges.0.subscription', message: 'must be the ref of a subscription of fixtures.subscriptions' },
      expect.objectContaining({ field: 'fixtures.payments.2.currency' }),
      expect.objectContaining({ field: 'fixtures.payments.3.amount' }),
      expect.objectContaining({ field: 'fixtures.subscriptions.0.email' }),
      { field: 'fixtures.charges.1.amount', message: "must not exceed the subscription's max_amount" },
    ]);
    expect(await rowCounts()).toEqual(before);
  });

  it('is documented by docs/sandbox-fixtures.schema.json, which is the route schema, in /openapi.json too', async () => {
    const { $schema, $id, ...documented } = JSON.parse(await readFile(new URL('../../docs/sandbox-fixtures.schema.json', import.meta.url), 'utf8'));
    expect($schema).toBe('http://json-schema.org/draft-07/schema#');
    expect($id).toContain('sandbox-fixtures.schema.json');
    expect(documented).toEqual(JSON.parse(JSON.stringify(SandboxFixturesSchema)));
    const openapi = (await client(setup.server.baseUrl, '').get('/openapi.json')).body;
    const body = openapi.paths['/sandbox/accounts'].post.requestBody.content['application/json'].schema;
    expect(body.properties.fixtures).toMatchObject({ title: documented.title, properties: { payments: expect.any(Object), charges: expect.any(Object) } });
  });
});
