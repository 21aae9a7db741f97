// Without SMTP_URL every email stays in the local inbox: written and delivered at once, read through
// the emails API (a page at a time, each account its own) and `quipu emails`. A production
// installation without a mail server says so when its workers start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { createTestDatabase } from '../helpers/database.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { quipu, startServerProcess } from '../helpers/process.js';
import { PRODUCTION_SETTINGS } from '../helpers/production.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let shop: TestAccount;
let other: TestAccount;
let worker: DeliveryWorker;

beforeAll(async () => {
  server = await startTestServer();
  shop = await server.account({ name: 'Tienda Norte' });
  other = await server.account({ name: 'Otra tienda' });
  worker = testWorker(server);
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

const api = (account: TestAccount) => client(server.baseUrl, account.api_key);

async function emailedPayment(account: TestAccount, payer: string) {
  const res = await api(account).post('/v3/payments', {
    amount: 1500,
    currency: 'CLP',
    subject: `Order for ${payer}`,
    send_email: true,
    payer_name: payer,
    payer_email: `${payer}@example.com`,
  });
  expect(res.status).toBe(200);
  return res.body as { payment_id: string; payment_url: string };
}

describe('the local inbox', () => {
  it('keeps every email, delivered at once, and lists each account its own, newest first, a page at a time', async () => {
    const mine = [];
    for (const payer of ['ana', 'bea', 'cata']) mine.push(await emailedPayment(shop, payer));
    const theirs = await emailedPayment(other, 'dora');
    expect((await api(shop).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'No email' })).status).toBe(200);

    const all = await eventually(
      async () => (await api(shop).get('/quipu/v1/emails')).body,
      (page) => page.emails.length === 3 && page.emails.every((e: { status: string }) => e.status === 'delivered'),
    );
    expect(all.next_cursor).toBeNull();
    expect(all.emails.map((e: { payment_id: string }) => e.payment_id)).toEqual(mine.map((p) => p.payment_id).reverse());
    expect(all.emails[0]).toMatchObject({
      kind: 'payment.email.collection',
      receiver_id: shop.receiver_id,
      from: 'Quipu <no-reply@localhost>',
      to: 'cata@example.com',
      to_name: 'cata',
      subject: 'Cobro / Payment request: Order for cata · Tienda Norte',
      attempts: 1,
      next_attempt_at: null,
      delivered_at: expect.any(String),
    });
    expect(all.emails[0].text).toContain(mine[2]!.payment_url);
    expect(all.emails[0].html).toContain(`href="${mine[2]!.payment_url}"`);

    const detail = (await api(shop).get(`/quipu/v1/emails/${all.emails[0].id}`)).body;
    expect(detail.attempt_log).toEqual([
      expect.objectContaining({
        number: 1,
        trigger: 'first',
        outcome: 'delivered',
        status_code: null,
        error: null,
        response_excerpt: 'kept in the local inbox',
      }),
    ]);

    const first = (await api(shop).get('/quipu/v1/emails?limit=2')).body;
    expect(first.emails.map((e: { id: string }) => e.id)).toEqual(all.emails.slice(0, 2).map((e: { id: string }) => e.id));
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await api(shop).get(`/quipu/v1/emails?limit=2&cursor=${first.next_cursor}`)).body;
    expect(second.emails.map((e: { id: string }) => e.id)).toEqual([all.emails[2].id]);
    expect(second.next_cursor).toBeNull();

    const filtered = (await api(shop).get(`/quipu/v1/emails?payment_id=${mine[1]!.payment_id}`)).body;
    expect(filtered.emails.map((e: { to: string }) => e.to)).toEqual(['bea@example.com']);
    expect((await api(shop).get('/quipu/v1/emails?status=cancelled')).body.emails).toEqual([]);
    // Emails are not notifications.
    expect((await api(shop).get('/quipu/v1/notifications')).body.notifications).toEqual([]);

    const otherPage = await eventually(
      async () => (await api(other).get('/quipu/v1/emails')).body,
      (page) => page.emails.length === 1,
    );
    expect(otherPage.emails[0].payment_id).toBe(theirs.payment_id);
    expect((await api(other).get(`/quipu/v1/emails/${all.emails[0].id}`)).status).toBe(404);
    expect((await api(shop).get(`/quipu/v1/emails/${otherPage.emails[0].id}`)).status).toBe(404);
    expect((await api(shop).get('/quipu/v1/emails/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('answers bad listings with a 400 naming the field', async () => {
    const badCursor = await api(shop).get('/quipu/v1/emails?cursor=not-a-cursor');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.errors.map((e: { field: string }) => e.field)).toEqual(['cursor']);
    for (const query of ['limit=0', 'limit=501', 'status=lost']) {
      const res = await api(shop).get(`/quipu/v1/emails?${query}`);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(query.split('=')[0]);
    }
  });

  it('is what `quipu emails list|show` shows the operator, of the account named', async () => {
    const env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn' };
    const unnamed = await quipu(['emails', 'list', '--json'], env);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain('quipu: name the account with --receiver <receiver_id>');
    const ofShop = ['emails', 'list', '--receiver', String(shop.receiver_id)];
    const listed = await quipu([...ofShop, '--json'], env);
    expect(listed.code).toBe(0);
    const shops = JSON.parse(listed.stdout);
    expect(shops.emails.map((e: { to: string }) => e.to).sort()).toEqual(['ana@example.com', 'bea@example.com', 'cata@example.com']);
    expect(shops.next_cursor).toBeNull();

    const one = JSON.parse((await quipu(['emails', 'list', '--receiver', String(other.receiver_id), '--json'], env)).stdout);
    expect(one.emails.map((e: { to: string }) => e.to)).toEqual(['dora@example.com']);
    const paged = JSON.parse((await quipu([...ofShop, '--limit', '2', '--json'], env)).stdout);
    const rest = JSON.parse((await quipu([...ofShop, '--limit', '2', '--cursor', paged.next_cursor, '--json'], env)).stdout);
    expect([...paged.emails, ...rest.emails].map((e: { id: string }) => e.id)).toEqual(shops.emails.map((e: { id: string }) => e.id));

    const shown = await quipu(['emails', 'show', one.emails[0].id], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Hola, dora:');
    expect(shown.stdout).toContain('Hello dora,');
    expect(shown.stdout).toMatch(/#1 first .* delivered .*kept in the local inbox/);
    const missing = await quipu(['emails', 'show', 'nope'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Email not found');
  });
});

describe('a production installation without SMTP_URL', () => {
  it('warns when its server and its workers start: payers would get no email', async () => {
    const database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn', ...PRODUCTION_SETTINGS, PORT: '0' };
    const warning = 'SMTP_URL is not set: payer emails are kept in the local inbox and never sent';
    const processes = [startServerProcess(env), startServerProcess(env, ['worker'])];
    try {
      for (const p of processes) await p.waitFor(warning);
    } finally {
      for (const p of processes) await p.stop();
      await database.drop();
    }
  });
});
