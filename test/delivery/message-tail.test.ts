// What `quipu listen` follows (delivery/message-tail.ts): messages and attempts that appear after it
// started, each reported once, including rows that commit after later ones were read and rows
// written by a process that has not seen a moved developer clock yet.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageTail } from '../../src/delivery/message-tail.js';
import { type MessageKind, PAYMENT_NOTIFICATION_KIND } from '../../src/domain/message-kinds.js';
import { ShiftableClock } from '../../src/runtime/clock.js';
import { insertMessage, lastAttemptId } from '../../src/store/messages.js';
import type { DB, MessageRow } from '../../src/store/schema.js';
import { testDatabaseKind } from '../helpers/database.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const DAY = 86_400_000;
let server: TestServer;
let a: TestAccount;
let b: TestAccount;
let subjects = 0;

beforeAll(async () => {
  server = await startTestServer();
  a = await server.account();
  b = await server.account();
});
afterAll(async () => server?.close());

const write = (account: TestAccount, kind: MessageKind = PAYMENT_NOTIFICATION_KIND['3.0'], db: Kysely<DB> = server.ctx.db) =>
  server.ctx.outbox.write(db, {
    kind,
    receiverId: account.receiver_id,
    subjectId: `subject-${++subjects}`,
    url: 'http://127.0.0.1:9/notify',
    contentType: 'application/json',
    body: '{}',
  });

async function logAttempt(message: MessageRow, options: { attemptId?: number; db?: Kysely<DB> } = {}): Promise<number> {
  const now = server.ctx.clock.now().getTime();
  const row = await (options.db ?? server.ctx.db)
    .insertInto('message_attempts')
    .values({
      ...(options.attemptId === undefined ? {} : { attempt_id: options.attemptId }),
      message_id: message.message_id,
      receiver_id: message.receiver_id,
      number: 1,
      trigger: 'first',
      due_at: now,
      started_at: now,
      latency_ms: 12,
      outcome: 'delivered',
      status_code: 200,
      error: null,
      response_excerpt: 'ok',
    })
    .returning('attempt_id')
    .executeTakeFirstOrThrow();
  return Number(row.attempt_id);
}

const started = async (tail: MessageTail) => {
  await tail.start();
  return tail;
};
const reported = async (tail: MessageTail) => {
  const batch = await tail.poll();
  return { messages: batch.messages.map((m) => m.message_id), attempts: batch.attempts.map((x) => x.attempt_id) };
};
const nothing = { messages: [], attempts: [] };

describe('MessageTail', () => {
  it('reports what is written after it started, once, and nothing of the past', async () => {
    const before = await write(a);
    await logAttempt(before);
    const tail = await started(new MessageTail(server.ctx.db, server.ctx.clocks));
    expect(await reported(tail)).toEqual(nothing);

    const message = await write(a);
    expect(await reported(tail)).toEqual({ messages: [message.message_id], attempts: [] });
    const attempt = await logAttempt(message);
    const batch = await tail.poll();
    expect(batch.attempts).toEqual([
      expect.objectContaining({ attempt_id: attempt, kind: message.kind, subject_id: message.subject_id, url: message.url, status_code: 200 }),
    ]);
    expect(await reported(tail)).toEqual(nothing);
  });

  it('reports a message stamped before messages already reported: its transaction committed late', async () => {
    const tail = await started(new MessageTail(server.ctx.db, server.ctx.clocks));
    const newer = await write(a);
    expect((await reported(tail)).messages).toEqual([newer.message_id]);
    expect(await reported(tail)).toEqual(nothing);
    const late = { ...newer, message_id: `${newer.message_id}-late`, created_at: newer.created_at - 30_000 };
    await insertMessage(server.ctx.db, late);
    expect(await reported(tail)).toEqual({ messages: [late.message_id], attempts: [] });
    expect(await reported(tail)).toEqual(nothing);
  });

  // On PostgreSQL ids are taken from a sequence, which the last test does with a transaction held
  // open; SQLite's single writer cannot hold one open while another commits, so ids are given here.
  it.runIf(testDatabaseKind() === 'sqlite')('reports an attempt logged under an id below one already reported', async () => {
    const message = await write(a);
    const tail = await started(new MessageTail(server.ctx.db, server.ctx.clocks));
    await reported(tail);
    const last = await lastAttemptId(server.ctx.db);
    await logAttempt(message, { attemptId: last + 2 });
    expect((await reported(tail)).attempts).toEqual([last + 2]);
    await logAttempt(message, { attemptId: last + 1 });
    expect((await reported(tail)).attempts).toEqual([last + 1]);
    expect(await reported(tail)).toEqual(nothing);
  });

  it('keeps reporting the writers that have not seen a moved developer clock yet', async () => {
    const clock = new ShiftableClock();
    clock.setOffset(server.ctx.clock.offsetMs);
    const tail = await started(new MessageTail(server.ctx.db, clock));
    clock.setOffset(server.ctx.clock.offsetMs + 2 * DAY);
    expect(await reported(tail)).toEqual(nothing);
    // Written on the server's clock, which has not moved.
    const message = await write(a);
    expect((await reported(tail)).messages).toEqual([message.message_id]);
  });

  it('reports only the account and kind asked for', async () => {
    const tail = await started(new MessageTail(server.ctx.db, server.ctx.clocks, { receiverId: a.receiver_id, kinds: [PAYMENT_NOTIFICATION_KIND['1.3']] }));
    const wanted = await write(a, PAYMENT_NOTIFICATION_KIND['1.3']);
    const others = [await write(a, PAYMENT_NOTIFICATION_KIND['3.0']), await write(b, PAYMENT_NOTIFICATION_KIND['1.3'])];
    const attempt = await logAttempt(wanted);
    for (const other of others) await logAttempt(other);
    expect(await reported(tail)).toEqual({ messages: [wanted.message_id], attempts: [attempt] });
  });

  it.runIf(testDatabaseKind() === 'postgres')('reports rows whose transaction commits after later rows were read', async () => {
    const earlier = await write(a);
    const tail = await started(new MessageTail(server.ctx.db, server.ctx.clocks));
    let commit!: () => void;
    let written!: (ids: { message: string; attempt: number }) => void;
    const wrote = new Promise<{ message: string; attempt: number }>((resolve) => (written = resolve));
    const lateTransaction = server.ctx.db.transaction().execute(async (trx) => {
      const message = await write(a, undefined, trx);
      written({ message: message.message_id, attempt: await logAttempt(earlier, { db: trx }) });
      await new Promise<void>((resolve) => (commit = resolve));
    });
    const late = await wrote;
    const message = await write(a);
    const attempt = await logAttempt(message);
    expect(attempt).toBeGreaterThan(late.attempt);
    expect(await reported(tail)).toEqual({ messages: [message.message_id], attempts: [attempt] });
    commit();
    await lateTransaction;
    expect(await reported(tail)).toEqual({ messages: [late.message], attempts: [late.attempt] });
    expect(await reported(tail)).toEqual(nothing);
  });
});
