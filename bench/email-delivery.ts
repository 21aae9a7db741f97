// Email delivery throughput end to end, the email row of the delivery section: N payments created
// with send_email write their collection emails to the outbox (not part of the figure), then the
// worker hands them to a real SMTP server in its own process (smtp-sink.ts), through the same
// generic outbox, schedule, leases and attempt log as webhooks: claim, SMTP (nodemailer, a pool of
// the per-destination cap's connections), record. The yardstick is the same mail server fed by a
// plain nodemailer loop with the same pool and no database, in the same run. The sink counts
// emails by Message-ID, so lost and duplicated emails are counted.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { createMerchant } from '../src/app/create-merchant.js';
import { createPayment } from '../src/app/create-payment.js';
import { defaultConcurrencyPerDestination, loadConfig } from '../src/config.js';
import type { DeliveryWorker } from '../src/delivery/worker.js';
import { decodeEmail } from '../src/domain/email-message.js';
import { EMAIL_KINDS } from '../src/domain/message-kinds.js';
import { startRuntime } from '../src/main/bootstrap.js';
import { deliveryWorker } from '../src/main/delivery-worker.js';
import { createLogger } from '../src/runtime/logger.js';
import { durable } from '../src/store/database.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { untilDelivered } from './delivery-wait.js';
import { fmt } from './load.js';

const N = Number(process.env.BENCH_EMAILS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_DELIVERY_CONCURRENCY ?? 64);
const PER_DESTINATION = defaultConcurrencyPerDestination(CONCURRENCY);
const EMAILED = { amount: 1000, currency: 'CLP', subject: 'Bench order', send_email: true, payer_name: 'Ana Pérez', payer_email: 'ana@example.com' };

interface Sink {
  url: string;
  stats(): Promise<{ emails: number; distinct: number; duplicates: number }>;
  reset(): Promise<void>;
  stop(): void;
}

async function startSink(): Promise<Sink> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./smtp-sink.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [smtpPort, controlPort] = await new Promise<string[]>((resolve) =>
    child.stdout!.on('data', (d) => {
      const ports = /listening (\d+) (\d+)/.exec(String(d));
      if (ports) resolve([ports[1]!, ports[2]!]);
    }),
  );
  const control = `http://127.0.0.1:${controlPort}`;
  return {
    url: `smtp://127.0.0.1:${smtpPort}`,
    stats: async () => (await (await fetch(`${control}/stats`)).json()) as { emails: number; distinct: number; duplicates: number },
    reset: async () => void (await fetch(`${control}/reset`, { method: 'POST' })),
    stop: () => child.kill(),
  };
}

/** The yardstick: `count` emails like the worker's (the same body) sent by a plain nodemailer loop with the same pool. */
async function directRate(sink: Sink, count: number, sample: ReturnType<typeof decodeEmail>): Promise<number> {
  const mailer = nodemailer.createTransport({ url: sink.url, pool: true, maxConnections: PER_DESTINATION });
  let next = 0;
  const loop = async () => {
    while (next < count) {
      const n = next++;
      await mailer.sendMail({
        from: sample.from,
        to: sample.to,
        subject: sample.subject,
        text: sample.text,
        html: sample.html,
        messageId: `<direct-${n}@bench.example>`,
      });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: PER_DESTINATION }, loop));
  const rate = count / ((performance.now() - started) / 1000);
  mailer.close();
  return rate;
}

interface EmailRun {
  database: string;
  rate: number;
  direct: number;
  delivered: number;
  lost: number;
  duplicated: number;
}

async function emailRun(kind: 'sqlite' | 'postgres', sink: Sink, adminUrl: string): Promise<EmailRun> {
  const db = await createTestDatabase(kind, adminUrl);
  const config = loadConfig({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, LOG_LEVEL: 'warn', DELIVERY_CONCURRENCY: String(CONCURRENCY), SMTP_URL: sink.url });
  const runtime = await startRuntime(config, createLogger('warn', 2), { longRunning: true });
  const ctx = runtime.ctx;
  let worker: DeliveryWorker | undefined;
  try {
    const { merchant } = await createMerchant(ctx, { name: 'Bench shop', developer: true });
    let made = 0;
    const create = async () => {
      while (made < N) {
        made++;
        await createPayment(ctx, merchant, 'v3', EMAILED);
      }
    };
    await Promise.all(Array.from({ length: kind === 'postgres' ? 8 : 1 }, create));
    await durable(ctx.db);
    const sample = decodeEmail((await ctx.db.selectFrom('messages').select('body').where('kind', 'in', EMAIL_KINDS).executeTakeFirstOrThrow()).body);
    await sink.reset();
    const direct = await directRate(sink, N, sample);
    await sink.reset();

    const started = performance.now();
    worker = deliveryWorker(ctx);
    worker.start();
    const deliveredRows = async () =>
      Number(
        (
          await ctx.db
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('kind', 'in', EMAIL_KINDS)
            .where('status', '=', 'delivered')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const delivered = await untilDelivered(N, started, async () => (await sink.stats()).distinct, deliveredRows);
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    worker = undefined;
    const stats = await sink.stats();
    return {
      database: kind === 'sqlite' ? 'SQLite' : 'PostgreSQL',
      rate: delivered / seconds,
      direct,
      delivered,
      lost: N - stats.distinct,
      duplicated: stats.duplicates,
    };
  } finally {
    await worker?.stop();
    await runtime.close();
    await db.drop();
  }
}

/** The email paragraph and table of the delivery section. */
export async function benchEmailDelivery(): Promise<string[]> {
  const sink = await startSink();
  try {
    const runs = [await emailRun('sqlite', sink, '')];
    if (process.env.BENCH_DATABASE_URL) runs.push(await emailRun('postgres', sink, process.env.BENCH_DATABASE_URL));
    const rows = runs.map((r) => {
      const ratio = r.rate / r.direct;
      const met = ratio >= 0.3 && r.lost === 0 && r.duplicated === 0 && r.delivered === N;
      return `| ${r.database} | ${fmt.rps(r.rate)} | ${fmt.rps(r.direct)} | ${fmt.pct(ratio)} | ${r.delivered.toLocaleString('en-US')} | ${r.lost} | ${r.duplicated} | ${met ? 'met' : '**missed**'} |`;
    });
    return [
      '### Emails',
      '',
      `${N.toLocaleString('en-US')} payments created with \`send_email\` have written their collection emails to the outbox (not part of the figure). The worker (concurrency ${CONCURRENCY}, so ${PER_DESTINATION} connections to the mail server, its per-destination cap) then hands them to a real SMTP server in its own process (\`bench/smtp-sink.ts\`, smtp-server): claim, SMTP through nodemailer's pool, record each attempt. **emails/s** is N over the time from the worker's start to the last attempt recorded. The yardstick is the same mail server fed by a plain nodemailer loop with the same pool (${PER_DESTINATION} connections) and no database, measured in the same run just before. The sink counts emails by Message-ID: lost and duplicated.`,
      '',
      '| database | emails/s (end to end) | direct nodemailer loop (emails/s) | of direct | delivered | lost | duplicated | target (≥ 30% of direct, none lost or duplicated) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
      ...rows,
      '',
    ];
  } finally {
    sink.stop();
  }
}
