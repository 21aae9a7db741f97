// A failover under load, run by test/failover/standby-takeover.test.ts (which asserts on loss and
// duplication) and by the bench's failover section (which records how long writes were away).
//
// A primary with a synchronous standby (standby-pair.ts); `quipu serve` (API only) and `quipu
// worker` as separate processes on DATABASE_URL naming both hosts; an account whose notifications
// go to a real local receiver, and subscriptions signed at DemoBank. Clients keep creating and
// reading payments, paying some at DemoBank (their notifications go out) and charging the
// subscriptions (the worker submits their debits to DemoBank). Then the primary stops at once, the
// standby is promoted a moment later, and the load goes on until writes have come back. Nothing is
// restarted: the processes find the new primary themselves.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/store/database.js';
import type { DB } from '../../src/store/schema.js';
import { startReceiver, type Receiver } from './notification-receiver.js';
import { freePort, quipu, startServerProcess, waitForHttp, type ServerProcess } from './quipu-processes.js';
import { startStandbyPair, type StandbyPair } from './standby-pair.js';

type Operation = 'subscribe' | 'create' | 'read' | 'pay' | 'charge';

export interface DrillAnswer {
  operation: Operation;
  /** The HTTP status; `timeout` when no answer came within the server's request timeout; `no answer` when the connection failed. */
  status: number | 'timeout' | 'no answer';
  retryAfter: string | null;
  sentAt: number;
  answeredAt: number;
}

export interface FailoverDrill {
  pair: StandbyPair;
  answers: DrillAnswer[];
  /** Payments whose create was answered 200. */
  created: string[];
  /** Payments paid at DemoBank by a scenario run answered 200 (status done): each must be notified. */
  paid: string[];
  /** Charges answered 200: each one's debit must be submitted to DemoBank once. */
  charged: string[];
  receiver: Receiver;
  server: ServerProcess;
  worker: ServerProcess;
  /** Epoch milliseconds: the primary stopped, the promotion was asked for, the standby took writes (pg_ctl's wait ended), a create was answered 200 again. */
  killedAt: number;
  promotingAt: number;
  promotedAt: number;
  firstWriteAt: number | undefined;
  /** The database on the promoted standby, connected to directly. */
  newPrimary: Kysely<DB>;
  close(): Promise<void>;
}

const DATABASE = 'quipu';
/** The drill's shape, which the bench's section describes. */
export const DRILL = {
  /** Clients sending requests at once. */
  clients: 4,
  /** Load before the primary is stopped. */
  steadyMs: 3_000,
  /** From the primary's stop to the standby's promotion: the time an operator or a failover manager takes to decide. */
  outageMs: 2_000,
  /** Load kept up after writes came back. */
  afterMs: 3_000,
  /** A client that met a 503 tries again this soon, not after Retry-After's seconds: the drill measures when writes come back. */
  retryMs: 50,
  /** The server's REQUEST_TIMEOUT_MS here: an answer later than this is a hang. */
  requestTimeoutMs: 20_000,
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The payment ids the receiver was notified of (3.0 notifications are the payment as JSON). */
export function notifiedPayments(receiver: Receiver): Set<string> {
  const ids = new Set<string>();
  for (const request of receiver.requests) {
    try {
      const id = (JSON.parse(request.body) as { payment_id?: unknown }).payment_id;
      if (typeof id === 'string') ids.add(id);
    } catch {
      // Not a payment notification.
    }
  }
  return ids;
}

/** Debits of `paymentIds` not yet submitted to the bank, or whose submission's answer is not recorded yet. */
export async function debitsInFlight(db: Kysely<DB>, paymentIds: readonly string[]): Promise<number> {
  if (paymentIds.length === 0) return 0;
  const rows = await db.selectFrom('debits').select('state').where('payment_id', 'in', paymentIds).execute();
  return paymentIds.length - rows.filter((row) => !['due', 'submitting', 'uncertain'].includes(row.state)).length;
}

export async function runFailoverDrill(): Promise<FailoverDrill> {
  const closing: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const step of closing.reverse()) await step().catch(() => undefined);
  };
  try {
    const pair = await startStandbyPair();
    closing.push(() => pair.stop());
    const admin = new pg.Client({ connectionString: pair.urlOf(pair.primaryPort) });
    await admin.connect();
    await admin.query(`create database ${DATABASE}`);
    await admin.end();
    const receiver = await startReceiver();
    closing.push(() => receiver.close());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-failover-'));
    closing.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      DATABASE_URL: pair.multiHostUrl(DATABASE),
      DATA_DIR: dataDir,
      QUIPU_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      DEMO_ACCOUNT: 'false',
      DELIVERY_POLL_MS: '50',
      JOBS_POLL_MS: '200',
      REQUEST_TIMEOUT_MS: String(DRILL.requestTimeoutMs),
    };
    // The command line migrates the new database and opens the account, through the multi-host URL too.
    const made = await quipu(['merchants', 'create', '--name', 'Failover', '--notify-url', receiver.url, '--notify-api-version', '3.0', '--json'], env);
    if (made.code !== 0) throw new Error(`quipu merchants create failed: ${made.stderr}`);
    const apiKey = (JSON.parse(made.stdout) as { api_key: string }).api_key;
    const port = await freePort();
    const server = startServerProcess({ ...env, PORT: String(port), RUN_WORKER: 'false' });
    closing.push(() => server.stop('SIGKILL'));
    // At info, the worker says when it is ready.
    const worker = startServerProcess({ ...env, LOG_LEVEL: 'info' }, ['worker']);
    closing.push(() => worker.stop('SIGKILL'));
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForHttp(`${baseUrl}/readyz`).catch((error: Error) => {
      throw new Error(`${error.message}; quipu serve's output:\n${server.output()}`);
    });
    await worker.waitFor('notification delivery worker started');

    const answers: DrillAnswer[] = [];
    const ask = async (operation: Operation, method: string, pathAndQuery: string, body?: unknown): Promise<{ status: DrillAnswer['status']; body: any }> => {
      const sentAt = Date.now();
      let status: DrillAnswer['status'];
      let retryAfter: string | null = null;
      let parsed: any;
      try {
        const res = await fetch(`${baseUrl}${pathAndQuery}`, {
          method,
          headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(DRILL.requestTimeoutMs),
        });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        const text = await res.text();
        parsed = text.startsWith('{') ? JSON.parse(text) : text;
      } catch (error) {
        status = (error as Error).name === 'TimeoutError' ? 'timeout' : 'no answer';
      }
      answers.push({ operation, status, retryAfter, sentAt, answeredAt: Date.now() });
      return { status, body: parsed };
    };

    const subscriptions: string[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await ask('subscribe', 'POST', '/sandbox/scenarios/mandate-enabled/run');
      if (run.status !== 200) throw new Error(`mandate-enabled scenario: ${run.status} ${JSON.stringify(run.body)}`);
      subscriptions.push(run.body.subscription.subscription_id as string);
    }

    const created: string[] = [];
    const paid: string[] = [];
    const charged: string[] = [];
    let sent = 0;
    /** One request of the mix: four creates, two reads, a payment paid at DemoBank and a charge in every eight. */
    const oneRequest = async (): Promise<DrillAnswer['status']> => {
      const n = sent++;
      switch (n % 8) {
        case 1:
        case 5: {
          const id = created[Math.floor(Math.random() * created.length)];
          if (id === undefined) return 200;
          return (await ask('read', 'GET', `/v3/payments/${id}`)).status;
        }
        case 3: {
          const run = await ask('pay', 'POST', '/sandbox/scenarios/transfer-pays/run');
          if (run.status === 200 && run.body.payment?.status === 'done') paid.push(run.body.payment.payment_id as string);
          return run.status;
        }
        case 7: {
          const charge = await ask('charge', 'POST', '/v1/automatic-payment/charge-intent', {
            subscription_id: subscriptions[n % subscriptions.length],
            amount: 1000,
            subject: `Charge ${n}`,
            body: 'Monthly fee',
            custom: 'c',
            transaction_id: `CHARGE-${n}`,
            notify_url: `${receiver.url}?charge`,
            error_response_url: `${receiver.url}?charge-error`,
          });
          if (charge.status === 200) charged.push(charge.body.payment_id as string);
          return charge.status;
        }
        default: {
          const create = await ask('create', 'POST', '/v3/payments', { amount: 1000, currency: 'CLP', subject: `Order ${n}`, transaction_id: `ORDER-${n}` });
          if (create.status === 200) created.push(create.body.payment_id as string);
          return create.status;
        }
      }
    };
    let loading = true;
    const load = Array.from({ length: DRILL.clients }, async () => {
      while (loading) if ((await oneRequest()) !== 200) await pause(DRILL.retryMs);
    });

    await pause(DRILL.steadyMs);
    const killedAt = Date.now();
    await pair.killPrimary();
    await pause(DRILL.outageMs);
    const promotingAt = Date.now();
    await pair.promoteStandby();
    const promotedAt = Date.now();
    const firstWrite = () => answers.find((a) => a.operation === 'create' && a.status === 200 && a.sentAt > killedAt)?.answeredAt;
    for (const deadline = Date.now() + 60_000; firstWrite() === undefined && Date.now() < deadline;) await pause(DRILL.retryMs);
    const firstWriteAt = firstWrite();
    if (firstWriteAt !== undefined) await pause(DRILL.afterMs);
    loading = false;
    await Promise.all(load);

    const opened: Database = openDatabase(pair.urlOf(pair.standbyPort, DATABASE), { poolSize: 2 });
    closing.splice(1, 0, () => opened.close());
    // What the worker still owes after the load: the notifications of paid payments, the charges' debits.
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await pause(200)) {
      const notified = notifiedPayments(receiver);
      if (paid.every((id) => notified.has(id)) && (await debitsInFlight(opened.db, charged)) === 0) break;
    }
    return {
      pair,
      answers,
      created,
      paid,
      charged,
      receiver,
      server,
      worker,
      killedAt,
      promotingAt,
      promotedAt,
      firstWriteAt,
      newPrimary: opened.db,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
