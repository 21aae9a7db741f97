// N charges end to end against one `quipu serve` process: created over the API by autocannon,
// submitted to DemoBank by the server's own collect-debits job, settled by moving the developer
// clock past the next bank business day, reconciled, and their 3.0 notifications delivered by the
// server's worker to a local receiver in its own process. The receiver counts deliveries per
// payment; DemoBank's books and request journal count what it was sent.
import { sql, type Kysely } from 'kysely';
import { performance } from 'node:perf_hooks';
import { debitsSubmittedTwice } from '../src/bank/demo-bank-mandates.js';
import { nextBusinessDay } from '../src/domain/business-days.js';
import { openDatabase } from '../src/store/database.js';
import { startChargeServer } from './charge-server.js';
import type { Receiver } from './delivery.js';
import { untilDelivered } from './delivery-wait.js';
import { load } from './load.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** How often the server looks for due jobs: collect-debits is due every 5 s of the developer clock, this finds it within 50 ms. */
const JOBS_POLL_MS = 50;
/**
 * How long the job may take to submit every debit once the last charge is created, and the bank's
 * answers, reconciliation and delivery once the clock has moved: far more than a run takes, on a
 * shared machine whose load varies.
 */
const SUBMISSION_LIMIT_MS = 300_000;
const SETTLEMENT_LIMIT_MS = 300_000;
/**
 * How often the bench reads DemoBank's request journal. The journal keeps only its latest 10,000
 * requests, fewer than a run makes, so every `debit` request is read while it is still there.
 */
const JOURNAL_READ_MS = 250;
/**
 * Request ids are drawn before their transactions commit, so on PostgreSQL a row can appear below
 * ids already read: each read goes back this far (far more than the requests in flight at once).
 */
const JOURNAL_OVERLAP = 2_000;

export interface PipelineRun {
  database: string;
  /** `quipu worker` processes beside the server, sharing its jobs and deliveries. */
  workers: number;
  n: number;
  /** Charge intents created per second while autocannon sent them. */
  createRate: number;
  /** From the last charge created until the job had submitted every debit. */
  submitSeconds: number;
  /** From the clock's move to the last notification recorded delivered. */
  settleSeconds: number;
  /** N over the whole run: from the first charge sent to the last notification recorded. */
  rate: number;
  delivered: number;
  lost: number;
  duplicated: number;
  /** Payments that read done at the end. */
  done: number;
  /** DemoBank's debit rows; the orders its books count as received more than once, and the payments with more than one order. */
  bankDebits: number;
  ordersReceivedTwice: number;
  paymentsDebitedTwice: number;
  /** `debit` requests in DemoBank's journal, and the orders among them sent more than once. */
  debitRequests: number;
  ordersSubmittedTwice: number;
}

const count = async (db: Kysely<any>, query: ReturnType<typeof sql<{ n: unknown }>>): Promise<number> => Number((await query.execute(db)).rows[0]!.n);

/** Reads every `debit` request DemoBank journals, until stopped; the requests per order. */
function watchDebitRequests(db: Kysely<any>): { stop(): Promise<Map<string, number>> } {
  const seen = new Set<number>();
  const perOrder = new Map<string, number>();
  let highest = 0;
  let stopped = false;
  const read = async () => {
    const { rows } = await sql<{
      request_id: unknown;
      order_id: string;
    }>`select request_id, order_id from demobank_requests where operation = 'debit' and request_id > ${highest - JOURNAL_OVERLAP}`.execute(db);
    for (const row of rows) {
      const id = Number(row.request_id);
      if (seen.has(id)) continue;
      seen.add(id);
      highest = Math.max(highest, id);
      perOrder.set(row.order_id, (perOrder.get(row.order_id) ?? 0) + 1);
    }
  };
  const watching = (async () => {
    while (!stopped) {
      await read();
      await new Promise((r) => setTimeout(r, JOURNAL_READ_MS));
    }
    await read();
  })();
  // A failed read ends the watch; stop() reports it, and until then it must not end the process.
  watching.catch(() => undefined);
  return {
    stop: async () => {
      stopped = true;
      await watching;
      return perOrder;
    },
  };
}

/** Waits until `reached()`, asked every `everyMs`, failing after `limitMs`. */
export async function until(limitMs: number, what: string, reached: () => Promise<boolean>, everyMs = 100): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!(await reached())) {
    if (performance.now() > deadline) throw new Error(`the charge pipeline bench gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Debits the job has not yet submitted to their bank. */
export const unsubmittedDebits = (db: Kysely<any>) => count(db, sql`select count(*) as n from debits where state in ('due', 'submitting')`);

/** Notifications of every account recorded delivered. */
export const deliveredNotifications = (db: Kysely<any>) => count(db, sql`select count(*) as n from notifications where status = 'delivered'`);

/** Moves the developer clock of the account of `headers` past the next bank business day, when every debit submitted until now settles. */
export async function moveClockPastSettlement(url: string, headers: Record<string, string>): Promise<void> {
  const { now } = (await fetch(`${url}/sandbox/clock`, { headers }).then((r) => r.json())) as { now: string };
  const settleAt = new Date(nextBusinessDay(new Date(now)).getTime() + 60_000);
  const moved = await fetch(`${url}/sandbox/clock`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ to: settleAt.toISOString() }),
  });
  if (moved.status !== 200) throw new Error(`moving the developer clock answered ${moved.status}: ${await moved.text()}`);
}

export async function chargePipeline(kind: 'sqlite' | 'postgres', adminUrl: string, receiver: Receiver, n: number, workers = 0): Promise<PipelineRun> {
  const server = await startChargeServer(kind, adminUrl, receiver.url, { JOBS_POLL_MS: String(JOBS_POLL_MS) }, workers);
  const watcher = openDatabase(server.database.url, { poolSize: 2 });
  const db = watcher.db as Kysely<any>;
  let journal: ReturnType<typeof watchDebitRequests> | undefined;
  try {
    await receiver.reset();
    // Watched from before the first charge to after the last notification: a debit submitted
    // again at any point, even while DemoBank is asked about the others, is counted.
    journal = watchDebitRequests(db);
    const charges = await load({ ...server.charge, connections: CONNECTIONS, amount: n });
    const created = await count(db, sql`select count(*) as n from debits`);
    if (created !== n) throw new Error(`${n - created} of ${n} charge intents were refused (${charges.non2xx} non-2xx, ${charges.errors} errors)`);
    await until(SUBMISSION_LIMIT_MS, 'every debit submitted', async () => (await unsubmittedDebits(db)) === 0);
    const submitted = Date.now();

    await moveClockPastSettlement(server.url, server.headers);
    const movedAt = performance.now();
    const delivered = await untilDelivered(
      n,
      movedAt,
      async () => (await receiver.stats()).distinct,
      () => deliveredNotifications(db),
      SETTLEMENT_LIMIT_MS,
    );
    const finished = Date.now();
    const settleSeconds = (performance.now() - movedAt) / 1000;
    const stats = await receiver.stats();
    const perOrder = await journal.stop();
    const bank = (
      await sql<{ rows: unknown; payments: unknown }>`select count(*) as rows, count(distinct payment_id) as payments from demobank_debits`.execute(db)
    ).rows[0]!;
    return {
      database: kind === 'sqlite' ? 'SQLite' : 'PostgreSQL',
      workers,
      n,
      createRate: n / ((charges.finishedAt! - charges.startedAt!) / 1000),
      submitSeconds: (submitted - charges.finishedAt!) / 1000,
      settleSeconds,
      rate: delivered / ((finished - charges.startedAt!) / 1000),
      delivered,
      lost: n - stats.distinct,
      duplicated: stats.duplicates,
      done: await count(db, sql`select count(*) as n from payments where status = 'done'`),
      bankDebits: Number(bank.rows),
      ordersReceivedTwice: await debitsSubmittedTwice(db),
      paymentsDebitedTwice: Number(bank.rows) - Number(bank.payments),
      debitRequests: [...perOrder.values()].reduce((a, b) => a + b, 0),
      ordersSubmittedTwice: [...perOrder.values()].filter((k) => k > 1).length,
    };
  } finally {
    await journal?.stop().catch(() => undefined);
    await watcher.close();
    await server.stop();
  }
}
