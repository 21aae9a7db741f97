// The server process is killed (SIGKILL) while it hands emails to a mail server that hangs. After
// a restart every email is delivered; only those that were in flight at the kill may arrive twice,
// under the same Message-ID, so the mail server and the payer's client can tell.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/app/create-merchant.js';
import { createPayment } from '../../src/app/create-payment.js';
import { loadConfig } from '../../src/config.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { ACCEPT, type MailServer, startMailServer } from '../helpers/mail-server.js';
import { eventually } from '../helpers/notification-receiver.js';
import { serveOnFreePort, type ServerProcess } from '../helpers/process.js';

const N = 20;
const CONCURRENCY = 4;
let database: TestDatabase;
let runtime: Runtime;
let mail: MailServer;
const servers: ServerProcess[] = [];
let releaseHung!: () => void;
const hung = new Promise<void>((resolve) => (releaseHung = resolve));

beforeAll(async () => {
  database = await createTestDatabase();
  // Hold every email: the attempts stay in flight until the process is killed.
  mail = await startMailServer(() => ({ hold: hung }));
});
afterAll(async () => {
  releaseHung();
  for (const s of servers) await s.stop('SIGKILL');
  await runtime?.close();
  await mail?.close();
  await database?.drop();
});

describe('SIGKILL while emails are in flight', () => {
  it('delivers every pending email after a restart', async () => {
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'warn',
      DEMO_ACCOUNT: 'false',
      SMTP_URL: mail.url,
      DELIVERY_CONCURRENCY: String(CONCURRENCY),
      // The mail server takes every slot: all of them in flight at the kill.
      DELIVERY_CONCURRENCY_PER_DESTINATION: String(CONCURRENCY),
      DELIVERY_TIMEOUT_MS: '2500',
      DELIVERY_LEASE_MS: '5000',
      DELIVERY_POLL_MS: '50',
    };
    runtime = await startRuntime(loadConfig(env), createLogger('silent', 2));
    const ctx = runtime.ctx;
    const { merchant } = await createMerchant(ctx, { name: 'Crash shop', developer: true });
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const payment = await createPayment(ctx, merchant, 'v3', {
        amount: 1000,
        currency: 'CLP',
        subject: `Order ${i}`,
        send_email: true,
        payer_name: `Payer ${i}`,
        payer_email: `payer${i}@example.com`,
      });
      ids.push(payment.paymentId);
    }

    const first = await serveOnFreePort(env, servers);
    await mail.waitFor((mails) => mails.length === CONCURRENCY);
    await first.stop('SIGKILL');
    const inFlightAtKill = new Set(mail.mails.map((m) => m.parsed.messageId));
    expect(inFlightAtKill.size).toBe(CONCURRENCY);

    mail.answer(ACCEPT);
    releaseHung();
    // The killed process's leases end after DELIVERY_LEASE_MS: the restarted one takes them over then.
    await serveOnFreePort(env, servers);
    const emails = await eventually(
      () => ctx.db.selectFrom('messages').select(['message_id', 'subject_id', 'status']).where('kind', '=', 'payment.email.collection').execute(),
      (rows) => rows.length === N && rows.every((r) => r.status === 'delivered'),
      60_000,
    );
    expect(emails.map((e) => e.subject_id).sort()).toEqual([...ids].sort());

    const accepted = new Map<string, number>();
    for (const m of mail.mails.filter((m) => m.answer === 'accepted')) accepted.set(m.parsed.messageId!, (accepted.get(m.parsed.messageId!) ?? 0) + 1);
    for (const e of emails) expect(accepted.get(`<${e.message_id}@localhost>`)).toBeGreaterThanOrEqual(1);
    for (const [messageId, count] of accepted) if (count > 1) expect(inFlightAtKill.has(messageId)).toBe(true);
    // The attempts killed in flight were never recorded: one recorded delivery per email.
    const delivered = await ctx.db.selectFrom('message_attempts').select('message_id').where('outcome', '=', 'delivered').execute();
    expect(delivered).toHaveLength(N);
  }, 120_000);
});
