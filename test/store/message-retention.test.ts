// The outbox's retention on the database under test (SQLite or PostgreSQL): finished messages and
// their attempts past MESSAGE_RETENTION_DAYS go in batches; pending ones, recent ones and those a
// resend within the window touched stay; the payment stays readable; a pruned message's resend
// answers 404 saying it may have been pruned; a retention shorter than the resend window is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneExpired } from '../../src/app/prune-expired.js';
import { pruneMessages } from '../../src/app/prune-messages.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { RESEND_WINDOW_DAYS } from '../../src/domain/message-retention.js';
import { pruneMessageBatch } from '../../src/store/message-pruning.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { quipu } from '../helpers/process.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const DAY = 86_400_000;

let server: TestServer;
let ok: Receiver;
let failing: Receiver;
let worker: DeliveryWorker | undefined;
let account: TestAccount;
/** Message ids by payment id, and the payments by role. */
const messageOf = new Map<string, string>();
const paid: Record<'old1' | 'old2' | 'old3' | 'resent' | 'recent' | 'stillTrying', string> = {} as never;

const api = () => client(server.baseUrl, account.api_key);
const now = () => server.ctx.clocks.now().getTime();

/** Dates a payment's message (and its attempts) `createdDaysAgo` and `changedDaysAgo` before the installation's now. */
async function age(paymentId: string, createdDaysAgo: number, changedDaysAgo = createdDaysAgo) {
  const messageId = messageOf.get(paymentId)!;
  await server.ctx.db
    .updateTable('messages')
    .set({ created_at: now() - createdDaysAgo * DAY, updated_at: now() - changedDaysAgo * DAY })
    .where('message_id', '=', messageId)
    .execute();
  await server.ctx.db
    .updateTable('message_attempts')
    .set({ started_at: now() - createdDaysAgo * DAY, due_at: now() - createdDaysAgo * DAY })
    .where('message_id', '=', messageId)
    .execute();
}

const kept = async () =>
  new Set((await server.ctx.db.selectFrom('messages').select('message_id').where('receiver_id', '=', account.receiver_id).execute()).map((r) => r.message_id));
const attemptsOf = async (paymentId: string) =>
  (await server.ctx.db.selectFrom('message_attempts').select('attempt_id').where('message_id', '=', messageOf.get(paymentId)!).execute()).length;

beforeAll(async () => {
  server = await startTestServer();
  ok = await startReceiver();
  failing = await startReceiver(() => ({ status: 500 }));
  worker = testWorker(server);
  account = await server.account();
  for (const role of ['old1', 'old2', 'old3', 'resent', 'recent'] as const)
    paid[role] = (await reconciledPayment(server, account, { notify_url: ok.url })).paymentId;
  paid.stillTrying = (await reconciledPayment(server, account, { notify_url: failing.url })).paymentId;
  const rows = await eventually(
    () =>
      server.ctx.db.selectFrom('messages').select(['message_id', 'subject_id', 'status', 'attempts']).where('receiver_id', '=', account.receiver_id).execute(),
    (list) => list.length === 6 && list.every((m) => m.attempts > 0),
  );
  // Nothing more is to be delivered: what follows dates the messages itself.
  await worker!.stop();
  worker = undefined;
  for (const row of rows) messageOf.set(row.subject_id, row.message_id);
  const retention = server.config.messageRetentionDays;
  for (const role of ['old1', 'old2', 'old3', 'stillTrying'] as const) await age(paid[role], retention + 20);
  // Created long ago, resent a month ago: its latest change is well within the window.
  await age(paid.resent, retention + 20, 30);
});
afterAll(async () => {
  await worker?.stop();
  await ok?.close();
  await failing?.close();
  await server?.close();
});

describe('message retention', () => {
  it('defaults to more than the resend window', () => {
    expect(server.config.messageRetentionDays).toBeGreaterThan(RESEND_WINDOW_DAYS);
  });

  it('prunes finished messages past the retention, with their attempts, a batch at a time, and keeps the rest', async () => {
    const old = [paid.old1, paid.old2, paid.old3];
    expect(await Promise.all(old.map(attemptsOf))).toEqual([1, 1, 1]);
    const cutoff = now() - server.config.messageRetentionDays * DAY;
    // One batch takes no more than its size.
    expect(await pruneMessageBatch(server.ctx.db, cutoff, 2)).toBe(2);
    expect([...(await kept())].filter((id) => old.some((p) => messageOf.get(p) === id))).toHaveLength(1);
    // The job's own loop, one message a batch, takes the last one.
    expect(await pruneMessages(server.ctx, 1)).toBe(1);
    await pruneExpired(server.ctx);
    const left = await kept();
    for (const p of old) expect(left.has(messageOf.get(p)!)).toBe(false);
    expect(await Promise.all(old.map(attemptsOf))).toEqual([0, 0, 0]);
    for (const p of [paid.resent, paid.recent, paid.stillTrying]) expect(left.has(messageOf.get(p)!)).toBe(true);
    expect(await attemptsOf(paid.recent)).toBe(1);
  });

  it('keeps a payment whose messages were pruned readable', async () => {
    const res = await api().get(`/v3/payments/${paid.old1}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ payment_id: paid.old1, status: 'done' });
  });

  it("answers a pruned message's resend with a 404 that says it may have been pruned, and resends one within the window", async () => {
    for (const path of [`/quipu/v1/notifications/${messageOf.get(paid.old2)}/resend`, `/quipu/v1/events/${messageOf.get(paid.old2)}/resend`]) {
      const res = await api().post(path);
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).toContain(`more than ${server.config.messageRetentionDays} days ago and was pruned (MESSAGE_RETENTION_DAYS)`);
    }
    const resent = await api().post(`/quipu/v1/notifications/${messageOf.get(paid.resent)}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ status: 'pending', payment_id: paid.resent });
  });

  it('refuses at start a retention shorter than the resend window', async () => {
    expect(() => loadConfig({ MESSAGE_RETENTION_DAYS: String(RESEND_WINDOW_DAYS - 1) })).toThrow(ConfigError);
    expect(loadConfig({ MESSAGE_RETENTION_DAYS: String(RESEND_WINDOW_DAYS) }).messageRetentionDays).toBe(RESEND_WINDOW_DAYS);
    const env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, MESSAGE_RETENTION_DAYS: '30', PORT: '0' };
    const started = await quipu(['serve'], env);
    expect(started.code).not.toBe(0);
    expect(started.stderr).toContain(`MESSAGE_RETENTION_DAYS must be at least ${RESEND_WINDOW_DAYS} days, the window in which a message can be resent`);
  });
});
