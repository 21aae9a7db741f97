// The merchant's view of everything Quipu sends for it, of every kind (/quipu/v1/events): filters,
// paging by cursor while events are written, the exact headers of each attempt, resend.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { encodePageCursor } from '../../src/domain/page-cursor.js';
import { MESSAGE_KIND_NAMES, MESSAGE_KINDS, PAYMENT_NOTIFICATION_KIND } from '../../src/domain/message-kinds.js';
import type { Payment } from '../../src/domain/payment.js';
import { insertMessage } from '../../src/store/messages.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { call, client, type JsonResponse } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let ok: Receiver;
let failing: Receiver;
let worker: DeliveryWorker;
let a: TestAccount;
let b: TestAccount;
const paid: { a1: Payment; a2: Payment; a3: Payment; b1: Payment } = {} as never;

interface Event {
  id: string;
  kind: string;
  subject_id: string;
  status: string;
  attempts: number;
}

const api = (account: TestAccount) => client(server.baseUrl, account.api_key);
const eventOf = async (account: TestAccount, payment: Payment): Promise<Event> => {
  const res = await api(account).get(`/quipu/v1/events?subject_id=${payment.paymentId}`);
  expect(res.body.events).toHaveLength(1);
  return res.body.events[0];
};
const detail = (account: TestAccount, id: string) => api(account).get(`/quipu/v1/events/${id}`);
const ids = (events: Event[]) => events.map((e) => e.id);

beforeAll(async () => {
  server = await startTestServer();
  ok = await startReceiver();
  failing = await startReceiver(() => ({ status: 500, body: 'down' }));
  worker = testWorker(server);
  a = await server.account();
  b = await server.account();
  const tick = () => api(a).post('/sandbox/clock', { advance: '1s' });
  paid.a1 = await reconciledPayment(server, a, { notify_url: ok.url });
  await tick();
  paid.a2 = await reconciledPayment(server, a, { notify_url: ok.url, notify_api_version: '1.3' });
  await tick();
  paid.a3 = await reconciledPayment(server, a, { notify_url: failing.url });
  paid.b1 = await reconciledPayment(server, b, { notify_url: ok.url });
  await eventually(
    async () => (await api(a).get('/quipu/v1/events')).body.events as Event[],
    (list) => list.every((e) => e.attempts > 0),
  );
});
afterAll(async () => {
  await worker?.stop();
  await ok?.close();
  await failing?.close();
  await server?.close();
});

describe('GET /quipu/v1/events', () => {
  it("lists the account's own events of every kind, newest first, with their fields", async () => {
    const res = await api(a).get('/quipu/v1/events');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(res.body.events.map((e: Event) => e.subject_id)).toEqual([paid.a3.paymentId, paid.a2.paymentId, paid.a1.paymentId]);
    expect(res.body.events[0]).toEqual({
      id: expect.any(String),
      kind: PAYMENT_NOTIFICATION_KIND['3.0'],
      subject_type: 'payment',
      subject_id: paid.a3.paymentId,
      receiver_id: a.receiver_id,
      destination: failing.url,
      status: 'pending',
      attempts: expect.any(Number),
      next_attempt_at: expect.any(String),
      delivered_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body.events[1]).toMatchObject({
      kind: PAYMENT_NOTIFICATION_KIND['1.3'],
      status: 'delivered',
      next_attempt_at: null,
      delivered_at: expect.any(String),
    });
    expect(ids(res.body.events)).not.toContain((await eventOf(b, paid.b1)).id);
  });

  it('filters by kind, subject and status', async () => {
    const byKind = await api(a).get(`/quipu/v1/events?kind=${PAYMENT_NOTIFICATION_KIND['1.3']}`);
    expect(byKind.body.events.map((e: Event) => e.subject_id)).toEqual([paid.a2.paymentId]);
    const delivered = await api(a).get('/quipu/v1/events?status=delivered');
    expect(delivered.body.events.map((e: Event) => e.subject_id)).toEqual([paid.a2.paymentId, paid.a1.paymentId]);
    const pending = await api(a).get(`/quipu/v1/events?status=pending&kind=${PAYMENT_NOTIFICATION_KIND['3.0']}`);
    expect(pending.body.events.map((e: Event) => e.subject_id)).toEqual([paid.a3.paymentId]);
    expect((await api(a).get(`/quipu/v1/events?subject_id=${paid.b1.paymentId}`)).body.events).toEqual([]);
  });

  it('pages by cursor with no event skipped or repeated while new ones are written, ties included', async () => {
    const c = await server.account();
    for (let i = 0; i < 3; i++) await reconciledPayment(server, c, { notify_url: ok.url });
    // Four more created in the same millisecond as the first: only the id orders them.
    const [first] = (await api(c).get('/quipu/v1/events?limit=500')).body.events as Event[];
    const row = (await server.ctx.db.selectFrom('messages').selectAll().where('message_id', '=', first!.id).executeTakeFirstOrThrow())!;
    for (let i = 0; i < 4; i++)
      await insertMessage(server.ctx.db, {
        ...row,
        message_id: `${row.message_id.slice(0, -2)}t${i}`,
        subject_id: `tie-${i}`,
        lease_id: null,
        locked_until: null,
      });
    const all: Event[] = (await api(c).get('/quipu/v1/events')).body.events;
    expect(all).toHaveLength(7);

    const pages: Event[][] = [];
    let cursor: string | null = null;
    do {
      const res: JsonResponse<{ events: Event[]; has_more: boolean; next_cursor: string | null }> = await api(c).get(
        `/quipu/v1/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      pages.push(res.body.events);
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
      // Written between pages: newer than every cursor given, so in none of the pages that follow.
      await reconciledPayment(server, c, { notify_url: ok.url });
    } while (cursor !== null);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
    expect(ids(pages.flat())).toEqual(ids(all));
    expect((await api(c).get('/quipu/v1/events')).body.events).toHaveLength(11);
  });

  it.each([
    ['kind=payment.notification.9.9', 'kind'],
    ['status=lost', 'status'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${Buffer.from('{"at":1}').toString('base64url')}`, 'cursor'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=ten', 'limit'],
    ['receiver_id=1', 'receiver_id'],
  ])('refuses ?%s with a 400 naming %s', async (query, field) => {
    const res = await api(a).get(`/quipu/v1/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });

  it('names every bad field at once', async () => {
    const res = await api(a).get('/quipu/v1/events?kind=nope&status=lost');
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['kind', 'status']);
    expect(res.body.errors.find((e: { field: string }) => e.field === 'kind').message).toBe(`must be one of ${MESSAGE_KIND_NAMES.join(', ')}`);
  });

  it('takes a cursor of another listing as a position only: it never reaches other accounts', async () => {
    const theirs = await eventOf(b, paid.b1);
    const created = Date.parse((await detail(b, theirs.id)).body.created_at);
    const res = await api(a).get(`/quipu/v1/events?cursor=${encodePageCursor({ at: created + 1, id: theirs.id })}`);
    expect(res.status).toBe(200);
    expect(res.body.events.every((e: { receiver_id: number }) => e.receiver_id === a.receiver_id)).toBe(true);
  });

  it('needs credentials', async () => {
    expect((await call(server.baseUrl, 'GET', '/quipu/v1/events')).status).toBe(401);
  });
});

describe('GET /quipu/v1/events/:id', () => {
  it('shows the body and, for each attempt, the headers it was sent with: its signature verifies', async () => {
    // Two more attempts of the failing one: the 5 s and 5 min retries.
    await api(a).post('/sandbox/clock', { advance: '6m' });
    const event = await eventOf(a, paid.a3);
    const res = await eventually(
      () => detail(a, event.id),
      (r) => r.body.attempts >= 3,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: event.id, kind: PAYMENT_NOTIFICATION_KIND['3.0'], content_type: 'application/json', status: 'pending' });
    expect(JSON.parse(res.body.body).payment_id).toBe(paid.a3.paymentId);
    expect(res.body.headers).toEqual({ 'content-type': 'application/json', 'user-agent': 'Quipu-Notifications/1.0' });

    const received = failing.requests.filter((r) => r.body === res.body.body);
    expect(received.length).toBeGreaterThanOrEqual(3);
    res.body.attempt_log.forEach((attempt: any, i: number) => {
      expect(attempt).toMatchObject({ number: i + 1, outcome: 'failed', status_code: 500, error: 'HTTP 500', response_excerpt: 'down' });
      const [, t, s] = /^t=(\d+),s=(.+)$/.exec(attempt.headers['x-khipu-signature'])!;
      expect(Number(t)).toBe(Date.parse(attempt.started_at));
      expect(s).toBe(createHmac('sha256', a.merchant.secret).update(`${t}.${res.body.body}`).digest('base64'));
      // Exactly what the receiver got on that attempt.
      for (const [name, value] of Object.entries(attempt.headers)) expect(received[i]!.headers[name]).toBe(value);
    });
  });

  it('shows no signature for a kind that is not signed', async () => {
    const res = await detail(a, (await eventOf(a, paid.a2)).id);
    expect(res.body.body).toBe(`api_version=1.3&notification_token=${paid.a2.notificationToken}`);
    expect(res.body.attempt_log).toHaveLength(1);
    expect(res.body.attempt_log[0]).toMatchObject({ outcome: 'delivered', status_code: 200, headers: res.body.headers });
    expect(res.body.headers).toEqual({ 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Quipu-Notifications/1.0' });
  });

  // Whatever the kinds table holds: a kind that does not travel over HTTP shows its address and no HTTP headers.
  const otherChannel = MESSAGE_KIND_NAMES.find((kind) => MESSAGE_KINDS[kind].channel !== 'http');
  it.runIf(otherChannel !== undefined)('shows a kind sent by another channel with its address and no HTTP headers', async () => {
    const c = await server.account();
    const dueAt = server.ctx.clock.now().getTime() + 86_400_000;
    const message = await server.ctx.outbox.write(server.ctx.db, {
      kind: otherChannel!,
      receiverId: c.receiver_id,
      subjectId: 'elsewhere',
      url: 'mailto:payer@example.com',
      contentType: 'text/plain',
      body: 'hello',
      dueAt,
    });
    const listed = await api(c).get(`/quipu/v1/events?kind=${otherChannel}`);
    expect(listed.body.events).toEqual([
      expect.objectContaining({ id: message.message_id, kind: otherChannel, destination: 'payer@example.com', status: 'pending', attempts: 0 }),
    ]);
    const shown = await detail(c, message.message_id);
    expect(shown.body).toMatchObject({ body: 'hello', content_type: 'text/plain', headers: null, attempt_log: [] });
  });

  it("is 404 for another account's event and for an unknown id", async () => {
    const theirs = await eventOf(b, paid.b1);
    expect((await detail(b, theirs.id)).status).toBe(200);
    const res = await detail(a, theirs.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, message: 'Event not found' });
    expect((await detail(a, 'no-such-event')).status).toBe(404);
    const long = await detail(a, 'x'.repeat(65));
    expect(long.status).toBe(400);
    expect(long.body.errors[0].field).toBe('id');
  });
});

describe('POST /quipu/v1/events/:id/resend', () => {
  it('starts a new round: the same body and ids sent again', async () => {
    const event = await eventOf(a, paid.a1);
    const sent = () => ok.requests.filter((r) => r.body.includes(paid.a1.paymentId));
    expect(sent()).toHaveLength(1);
    const res = await api(a).post(`/quipu/v1/events/${event.id}/resend`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: event.id, status: 'pending', attempts: 1, delivered_at: null, next_attempt_at: expect.any(String) });
    const after = await eventually(
      () => detail(a, event.id),
      (r) => r.body.status === 'delivered' && r.body.attempts === 2,
    );
    expect(after.body.attempt_log.map((x: { trigger: string }) => x.trigger)).toEqual(['first', 'resend']);
    expect(sent()).toHaveLength(2);
    expect(sent()[1]!.body).toBe(sent()[0]!.body);
    expect(sent()[1]!.headers['x-khipu-signature']).toBe(after.body.attempt_log[1].headers['x-khipu-signature']);
  });

  it("is 404 for another account's event, which stays as it was", async () => {
    const theirs = await eventOf(b, paid.b1);
    const before = (await detail(b, theirs.id)).body;
    const res = await api(a).post(`/quipu/v1/events/${theirs.id}/resend`);
    expect(res.status).toBe(404);
    expect((await detail(b, theirs.id)).body).toEqual(before);
  });

  it('is 409 while an attempt is in flight', async () => {
    let release!: () => void;
    const hanging = await startReceiver(() => ({ status: 200, after: new Promise<void>((r) => (release = r)) }));
    try {
      const payment = await reconciledPayment(server, a, { notify_url: hanging.url });
      await hanging.waitFor((requests) => requests.length === 1);
      const event = await eventOf(a, payment);
      const res = await api(a).post(`/quipu/v1/events/${event.id}/resend`);
      expect(res.status).toBe(409);
      expect(res.headers.get('retry-after')).toBe('1');
      release();
      const done = await eventually(
        () => detail(a, event.id),
        (r) => r.body.status === 'delivered',
      );
      expect(done.body.attempts).toBe(1);
    } finally {
      await hanging.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('describes the events operations, with every kind of the kinds table', async () => {
    const doc = (await call(server.baseUrl, 'GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/quipu/v1/events/{id}'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/quipu/v1/events/{id}/resend'])).toEqual(['post']);
    const kind = doc.paths['/quipu/v1/events'].get.parameters.find((p: { name: string }) => p.name === 'kind');
    expect(kind.schema.enum).toEqual(MESSAGE_KIND_NAMES);
  });
});
