// The operator's commands: `quipu events list|show|resend` for an account, and `quipu listen`, a
// real child process reading the database a running server writes, until Ctrl-C.
import { moveClock } from '../../src/app/developer-clock.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseName } from '../../src/cli/database-choice.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { MESSAGE_KIND_NAMES, PAYMENT_NOTIFICATION_KIND } from '../../src/domain/message-kinds.js';
import type { Payment } from '../../src/domain/payment.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, type Receiver, signedBy, startReceiver } from '../helpers/notification-receiver.js';
import { BIN, quipu } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let ok: Receiver;
let worker: DeliveryWorker;
let a: TestAccount;
let b: TestAccount;
let env: Record<string, string>;
const paid: { a1: Payment; a2: Payment; b1: Payment } = {} as never;

beforeAll(async () => {
  server = await startTestServer();
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn' };
  ok = await startReceiver();
  worker = testWorker(server);
  a = await server.account();
  b = await server.account();
  paid.a1 = await reconciledPayment(server, a, { notify_url: ok.url });
  // The installation's clock, which both accounts follow: the next payments are a second later than the first.
  await moveClock(server.ctx, { advance: '1s' });
  paid.a2 = await reconciledPayment(server, a, { notify_url: ok.url, notify_api_version: '1.3' });
  paid.b1 = await reconciledPayment(server, b, { notify_url: ok.url });
  await ok.waitFor((requests) => requests.length === 3);
});
afterAll(async () => {
  await worker?.stop();
  await ok?.close();
  await server?.close();
});

const json = async (args: string[]) => {
  const result = await quipu(args, env);
  // Nothing but the lines naming the database and, for a command that acts, its server: JSON on stdout, no warnings.
  expect(result.stderr.replace(/^server: .*\n/m, '')).toBe(`database: ${databaseName(server.database.url)}\n`);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
};

describe('quipu events', () => {
  it('lists the account named, with filters and cursor paging; of two, it must be named', async () => {
    const unnamed = await quipu(['events', 'list', '--json'], env);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain('quipu: name the account with --receiver <receiver_id> (accounts: ');
    for (const account of [a, b]) expect(unnamed.stderr).toContain(String(account.receiver_id));
    const ofA = await json(['events', 'list', '--receiver', String(a.receiver_id), '--json']);
    expect(ofA.events.map((e: { subject_id: string }) => e.subject_id)).toEqual([paid.a2.paymentId, paid.a1.paymentId]);
    expect(ofA).toMatchObject({ has_more: false, next_cursor: null });

    const first = await json(['events', 'list', '--receiver', String(a.receiver_id), '--limit', '1', '--json']);
    expect(first.events.map((e: { subject_id: string }) => e.subject_id)).toEqual([paid.a2.paymentId]);
    expect(first.has_more).toBe(true);
    const second = await json(['events', 'list', '--receiver', String(a.receiver_id), '--limit', '1', '--cursor', first.next_cursor, '--json']);
    expect(second).toMatchObject({
      events: [{ subject_id: paid.a1.paymentId, kind: PAYMENT_NOTIFICATION_KIND['3.0'], destination: ok.url }],
      has_more: false,
      next_cursor: null,
    });

    const ofKind = ['--kind', PAYMENT_NOTIFICATION_KIND['1.3'], '--status', 'delivered', '--json'];
    const byKind = await json(['events', 'list', '--receiver', String(a.receiver_id), ...ofKind]);
    expect(byKind.events.map((e: { subject_id: string }) => e.subject_id)).toEqual([paid.a2.paymentId]);
    expect((await json(['events', 'list', '--receiver', String(b.receiver_id), ...ofKind])).events).toEqual([]);
    const bySubject = await json(['events', 'list', '--receiver', String(b.receiver_id), '--subject', paid.b1.paymentId, '--json']);
    expect(bySubject.events).toMatchObject([{ receiver_id: b.receiver_id, status: 'delivered' }]);

    const text = await quipu(['events', 'list', '--receiver', String(a.receiver_id), '--limit', '1'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`payment ${paid.a2.paymentId}  ${ok.url}`);
    expect(text.stdout).toMatch(/^more: --cursor \S+$/m);
  }, 90_000);

  it('shows an event with each attempt and its signature, and resends it', async () => {
    const [event] = (await json(['events', 'list', '--receiver', String(a.receiver_id), '--subject', paid.a1.paymentId, '--json'])).events;
    const shown = await json(['events', 'show', event.id, '--json']);
    expect(shown).toMatchObject({ id: event.id, content_type: 'application/json', headers: { 'user-agent': 'Quipu-Notifications/1.0' } });
    const [, t, s] = /^t=(\d+),s=(.+)$/.exec(shown.attempt_log[0].headers['x-khipu-signature'])!;
    expect(s).toBe(createHmac('sha256', a.merchant.secret).update(`${t}.${shown.body}`).digest('base64'));
    const received = ok.requests.find((r) => r.body === shown.body)!;
    expect(received.headers['x-khipu-signature']).toBe(shown.attempt_log[0].headers['x-khipu-signature']);

    const text = await quipu(['events', 'show', event.id], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(paid.a1.paymentId);
    expect(text.stdout).toMatch(/#1 first .* delivered +200/);
    expect(text.stdout).toContain(`x-khipu-signature: t=${t},s=${s}`);

    const resent = await json(['events', 'resend', event.id, '--json']);
    expect(resent).toMatchObject({ id: event.id, status: 'pending', delivered_at: null });
    const after = await eventually(
      () => json(['events', 'show', event.id, '--json']),
      (v) => v.status === 'delivered' && v.attempts === 2,
    );
    expect(after.attempt_log.map((x: { trigger: string }) => x.trigger)).toEqual(['first', 'resend']);
  }, 90_000);

  it('explains unknown events and bad options', async () => {
    const missing = await quipu(['events', 'show', 'nope'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Event not found');
    expect((await quipu(['events', 'resend', 'nope'], env)).code).toBe(2);
    const kind = await quipu(['events', 'list', '--kind', 'fax'], env);
    expect(kind.code).not.toBe(0);
    expect(kind.stderr).toContain(MESSAGE_KIND_NAMES.join(', '));
    const status = await quipu(['events', 'list', '--status', 'lost'], env);
    expect(status.code).not.toBe(0);
    expect(status.stderr).toContain('pending, delivered, exhausted');
    const cursor = await quipu(['events', 'list', '--receiver', String(a.receiver_id), '--cursor', 'bogus'], env);
    expect(cursor.code).toBe(2);
    expect(cursor.stderr).toContain('cursor: is not a cursor this listing gave');
    const limit = await quipu(['events', 'list', '--receiver', String(a.receiver_id), '--limit', '501'], env);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('limit: must be a whole number from 1 to 500');
  }, 90_000);
});

interface Listener {
  child: ChildProcess;
  stdout(): string;
  exited: Promise<number | null>;
}

/** `quipu listen` as a child process, once it has said it is listening. */
async function listen(args: string[]): Promise<Listener> {
  const child = spawn(process.execPath, [BIN, 'listen', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await eventually(
    async () => stderr,
    (text) => text.includes('listening') || child.exitCode !== null,
    30_000,
  );
  expect(stderr).toMatch(/^database: .*\nquipu listen: listening \(.*\); Ctrl-C to stop\n$/);
  return { child, stdout: () => stdout, exited };
}

const lines = (listener: Listener) => listener.stdout().split('\n').filter(Boolean);
/** The lines of messages and attempts: the API requests that made them are printed too, when their rows are written. */
const sent = (listener: Listener) => lines(listener).filter((line) => !line.includes('  request  '));

describe('quipu listen', () => {
  it('prints each message written after it started and each attempt, until Ctrl-C', async () => {
    const listener = await listen([]);
    try {
      const payment = await reconciledPayment(server, a, { notify_url: ok.url });
      const printed = await eventually(
        async () => sent(listener),
        (l) => l.some((line) => line.includes(' attempt ')),
        30_000,
      );
      expect(printed).toHaveLength(2);
      expect(printed[0]).toMatch(
        new RegExp(`^\\S+  message  ${PAYMENT_NOTIFICATION_KIND['3.0'].replaceAll('.', '\\.')}  payment ${payment.paymentId}  -> ${ok.url}  \\S+$`),
      );
      expect(printed[1]).toMatch(
        new RegExp(
          `^\\S+  attempt  ${PAYMENT_NOTIFICATION_KIND['3.0'].replaceAll('.', '\\.')}  payment ${payment.paymentId}  -> ${ok.url}  #1 200 \\d+ ms delivered  \\S+$`,
        ),
      );
      // Nothing of the past.
      for (const earlier of Object.values(paid)) expect(listener.stdout()).not.toContain(earlier.paymentId);
      const requests = await eventually(
        async () => lines(listener).filter((line) => line.includes('  request  ')),
        (l) => l.length > 0,
        30_000,
      );
      expect(requests).toEqual([expect.stringMatching(/^\S+  request  POST \/v3\/payments 200 \d+ ms  \S+$/)]);
    } finally {
      listener.child.kill('SIGINT');
    }
    expect(await listener.exited).toBe(0);
  }, 90_000);

  it('prints one JSON object a line with --json, for the account and kind asked for', async () => {
    const listener = await listen(['--json', '--receiver', String(a.receiver_id), '--kind', PAYMENT_NOTIFICATION_KIND['1.3']]);
    try {
      await reconciledPayment(server, b, { notify_url: ok.url, notify_api_version: '1.3' });
      await reconciledPayment(server, a, { notify_url: ok.url });
      const payment = await reconciledPayment(server, a, { notify_url: ok.url, notify_api_version: '1.3' });
      const printed = await eventually(
        async () => lines(listener).map((line) => JSON.parse(line)),
        (l) => l.some((x) => x.type === 'attempt'),
        30_000,
      );
      expect(printed).toEqual([
        expect.objectContaining({
          type: 'message',
          kind: PAYMENT_NOTIFICATION_KIND['1.3'],
          subject_type: 'payment',
          subject_id: payment.paymentId,
          receiver_id: a.receiver_id,
          destination: ok.url,
        }),
        expect.objectContaining({
          type: 'attempt',
          event_id: printed[0].id,
          kind: PAYMENT_NOTIFICATION_KIND['1.3'],
          subject_id: payment.paymentId,
          destination: ok.url,
          number: 1,
          status_code: 200,
          latency_ms: expect.any(Number),
          outcome: 'delivered',
        }),
      ]);
    } finally {
      listener.child.kill('SIGINT');
    }
    expect(await listener.exited).toBe(0);
    expect(lines(listener)).toHaveLength(2);
  }, 90_000);
  it('prints the API requests of the account asked for, with the fields the API ignored', async () => {
    const listener = await listen(['--receiver', String(a.receiver_id)]);
    const json = await listen(['--json', '--receiver', String(a.receiver_id)]);
    try {
      await client(server.baseUrl, b.api_key).get('/v3/banks');
      const typo = await client(server.baseUrl, a.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Typo', notifyurl: ok.url });
      expect(typo.status).toBe(200);
      const requestId = typo.headers.get('x-request-id')!;
      const printed = await eventually(
        async () => lines(listener).filter((line) => line.includes('  request  ')),
        (l) => l.some((line) => line.includes(requestId)),
        30_000,
      );
      expect(printed).toEqual([expect.stringMatching(new RegExp(`^\\S+  request  POST /v3/payments 200 \\d+ ms  ignored: notifyurl  ${requestId}$`))]);
      const objects = await eventually(
        async () =>
          lines(json)
            .map((line) => JSON.parse(line))
            .filter((x) => x.type === 'request'),
        (l) => l.some((x) => x.request_id === requestId),
        30_000,
      );
      expect(objects).toEqual([
        expect.objectContaining({
          type: 'request',
          receiver_id: a.receiver_id,
          method: 'POST',
          path: '/v3/payments',
          status: 200,
          duration_ms: expect.any(Number),
          request_id: requestId,
          ignored_fields: 'notifyurl',
          error_body: null,
        }),
      ]);
    } finally {
      listener.child.kill('SIGINT');
      json.child.kill('SIGINT');
    }
    expect(await listener.exited).toBe(0);
    expect(await json.exited).toBe(0);
  }, 90_000);

  it('forwards each message with --forward-to, signed as its delivery, and prints the answer', async () => {
    const local = await startReceiver();
    const listener = await listen(['--receiver', String(a.receiver_id), '--forward-to', local.url]);
    try {
      const payment = await reconciledPayment(server, a, { notify_url: ok.url });
      await local.waitFor((requests) => requests.length === 1, 30_000);
      const [forwarded] = local.requests;
      expect(forwarded!.method).toBe('POST');
      expect(signedBy(a.merchant.secret, forwarded!)).toBe(true);
      expect(forwarded!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'Quipu-Notifications/1.0' });
      expect(JSON.parse(forwarded!.body)).toMatchObject({ payment_id: payment.paymentId });
      // The same bytes the delivery sent.
      await ok.waitFor((requests) => requests.some((r) => r.body === forwarded!.body), 30_000);
      const printed = await eventually(
        async () => lines(listener),
        (l) => l.some((line) => line.includes('  forward  ')),
        30_000,
      );
      expect(printed).toContainEqual(
        expect.stringMatching(
          new RegExp(`^\\S+  forward  ${PAYMENT_NOTIFICATION_KIND['3.0'].replaceAll('.', '\\.')}  -> ${local.url}  200 \\d+ ms delivered  \\S+$`),
        ),
      );
    } finally {
      listener.child.kill('SIGINT');
      await local.close();
    }
    expect(await listener.exited).toBe(0);
  }, 90_000);

  it('refuses a --forward-to that is not an http URL', async () => {
    const refused = await quipu(['listen', '--forward-to', 'ftp://example.com/x'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('must be an http:// or https:// URL');
  }, 90_000);
});
