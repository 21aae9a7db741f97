// Years of data on PostgreSQL: the same measures on an empty database and on one holding two
// years of an operator's history (5 million payments, their credits, notifications and attempts,
// years-of-data-load.ts), in the same run: payment creates and reads, the payments list's 95th
// percentile, the worker's outbox cycle (claim, then record the attempts) and reconciliation by
// bank credits. Both databases live on the same server, each with its own `quipu serve` (no worker,
// no jobs: nothing but the bench writes) and the bench's own runtime for the in-process measures;
// after the load they are measured in alternating rounds (rounds.ts), so a ratio compares the two
// within one round of this shared machine's drifting speed.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../src/app/context.js';
import { createMerchant } from '../src/app/create-merchant.js';
import { createPayment } from '../src/app/create-payment.js';
import { PRUNE_BATCH } from '../src/app/prune-messages.js';
import { recordCredits } from '../src/app/record-credits.js';
import { loadConfig } from '../src/config.js';
import type { BankCredit } from '../src/domain/bank-credit.js';
import type { Merchant } from '../src/domain/merchant.js';
import type { Payment } from '../src/domain/payment.js';
import { newUuid } from '../src/domain/ids.js';
import { retentionCutoff } from '../src/domain/message-retention.js';
import { startRuntime, type Runtime } from '../src/main/bootstrap.js';
import { createLogger } from '../src/runtime/logger.js';
import { wallClockMs } from '../src/runtime/wall-clock.js';
import { durable } from '../src/store/database.js';
import { pruneMessageBatch } from '../src/store/message-pruning.js';
import { claimDueMessages, insertMessages, recordAttempts } from '../src/store/messages.js';
import { startQuipu, type Quipu } from './api.js';
import { creditFor, CREDITS_PER_CALL } from './delivery.js';
import { fmt, load, type LoadOptions, type LoadResult } from './load.js';
import { percentile } from './payment-list.js';
import { inRounds, median, ratios, ROUND_SECONDS as SECONDS, ROUNDS, type Rounds } from './rounds.js';
import { writeHistory, type History } from './years-of-data-load.js';

const PAYMENTS = Number(process.env.BENCH_YEARS_PAYMENTS ?? 5_000_000);
const ACCOUNTS = Number(process.env.BENCH_YEARS_ACCOUNTS ?? 500);
const CONNECTIONS = 32;
// Each round's outbox and reconciliation work lasts seconds, as the timed measures do: a measure of a
// fraction of a second on this shared machine is mostly its noise.
/** Due messages the outbox cycle claims and records each round. */
const OUTBOX_MESSAGES = 10_000;
/** Payments reconciled each round. */
const RECONCILED = 4_000;
const LIST_CLIENTS = 2;
const LEAST = 0.8;
const PRUNE_SECONDS = 30;
const DAY = 86_400_000;
const WEEK = 7 * DAY;

interface Side {
  quipu: Quipu;
  runtime: Runtime;
  merchant: Merchant;
  /** POST /v3/payments, as another account than the one listed. */
  create: LoadOptions;
  /** A payment GET reads. */
  readId: string;
  /** Where a week of the list's dates starts. */
  weekFrom: number;
}

async function openSide(): Promise<Side> {
  const quipu = await startQuipu('postgres', { RUN_WORKER: 'false' });
  const config = loadConfig({ DATABASE_URL: quipu.databaseUrl, DATA_DIR: quipu.dataDir, LOG_LEVEL: 'warn' });
  const runtime = await startRuntime(config, createLogger('warn', 2), { longRunning: true });
  const merchant = (await runtime.ctx.merchants.byApiKey(quipu.apiKey))!;
  const readId = new URL(quipu.get.url).pathname.split('/').pop()!;
  // The creates go to an account of their own: tens of thousands of new pending payments on top of
  // the listed account's list would make its status=done page wade through them on both sides.
  const { credentials } = await createMerchant(runtime.ctx, { name: 'Bench creates', developer: true });
  const create = { ...quipu.create, headers: { ...quipu.create.headers, 'x-api-key': credentials.api_key } };
  return { quipu, runtime, merchant, create, readId, weekFrom: Date.now() - WEEK };
}

async function closeSide(side: Side): Promise<void> {
  await side.runtime.close();
  await side.quipu.stop();
}

const rate = (count: number, ms: number): LoadResult => ({ rps: count / (ms / 1000), p50: Number.NaN, p99: Number.NaN, errors: 0, non2xx: 0 });

/** RECONCILED new payments (not timed), then paid by credits fed as delivery.ts feeds them: credits/s. */
async function reconcile(ctx: AppContext, merchant: Merchant): Promise<LoadResult> {
  const payments: Payment[] = [];
  const create = async () => {
    while (payments.length < RECONCILED)
      payments.push(
        await createPayment(ctx, merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'Bench order', notify_url: 'https://shop.example/notify' }),
      );
  };
  await Promise.all(Array.from({ length: 8 }, create));
  const statements: BankCredit[][] = [];
  for (let i = 0; i < payments.length; i += CREDITS_PER_CALL)
    statements.push(payments.slice(i, i + CREDITS_PER_CALL).map((p, j) => creditFor(p, Date.now() * 1000 + i + j)));
  const started = performance.now();
  let next = 0;
  const feed = async () => {
    while (next < statements.length) {
      const outcomes = await recordCredits(ctx, statements[next++]!, 'operator');
      if (outcomes.some((o) => o.status !== 'matched'))
        throw new Error(`a credit did not match: ${JSON.stringify(outcomes.find((o) => o.status !== 'matched'))}`);
      await durable(ctx.db);
    }
  };
  await Promise.all(Array.from({ length: 8 }, feed));
  return rate(payments.length, performance.now() - started);
}

/**
 * OUTBOX_MESSAGES due notifications (copies of the account's latest), then the worker's cycle
 * without the HTTP in between: claim a batch (the worker's claim query), record a delivered attempt
 * for each (its attempt log and the message's new state), until nothing is due. Messages/s.
 */
async function outboxCycle(ctx: AppContext, receiverId: number): Promise<LoadResult> {
  const template = await ctx.db
    .selectFrom('messages')
    .selectAll()
    .where('receiver_id', '=', receiverId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  const now = ctx.clock.now().getTime();
  await insertMessages(
    ctx.db,
    Array.from({ length: OUTBOX_MESSAGES }, () => ({
      ...template,
      message_id: newUuid(ctx.random),
      status: 'pending',
      attempts: 0,
      round_step: 0,
      round_started_at: now,
      next_attempt_at: now - 1_000,
      lease_id: null,
      locked_until: null,
      delivered_at: null,
      created_at: now,
      updated_at: now,
    })),
  );
  const started = performance.now();
  let claimed = 0;
  for (;;) {
    const time = ctx.clocks.scanTime();
    const wallNow = wallClockMs(ctx.clock);
    const leaseId = randomUUID();
    const rows = await claimDueMessages(ctx.db, {
      time,
      wallNow,
      leaseId,
      leaseUntil: wallNow + 60_000,
      limit: ctx.config.deliveryBatchSize,
      skipDestinations: [],
    });
    if (rows.length === 0) break;
    const attempts = rows.map((row) => ({
      attempt: {
        message_id: row.message_id,
        receiver_id: row.receiver_id,
        trigger: 'first',
        due_at: row.next_attempt_at!,
        started_at: wallNow,
        latency_ms: 5,
        outcome: 'delivered',
        status_code: 200,
        error: null,
        response_excerpt: 'ok',
      },
      leaseId,
      nextAttemptAt: null,
    }));
    await recordAttempts(ctx.db, attempts, time);
    claimed += rows.length;
  }
  return rate(claimed, performance.now() - started);
}

interface Listed {
  p95: number;
  count: number;
  errors: number;
}

/**
 * LIST_CLIENTS clients asking one after another for the listings an account's dashboard and scripts
 * ask most: the first page, a status, a week of dates, and the next page of a walk through the
 * list (50 pages deep, then from the start again). The search (`q`) is measured on its own in the
 * payments list's section: its cost grows with the matches, whatever the history holds.
 */
async function listings(side: Side, seconds: number): Promise<Listed> {
  const { url, apiKey } = side.quipu;
  const get = async (query: string) => {
    const started = performance.now();
    const res = await fetch(`${url}/quipu/v1/payments?${query}`, { headers: { 'x-api-key': apiKey } });
    const page = (await res.json()) as { next_cursor?: string | null };
    return { ms: performance.now() - started, ok: res.status === 200, cursor: page.next_cursor ?? null };
  };
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const week = `from=${iso(side.weekFrom)}&to=${iso(side.weekFrom + WEEK)}`;
  const latencies: number[] = [];
  let errors = 0;
  const deadline = Date.now() + seconds * 1000;
  const client = async (n: number) => {
    let cursor: string | null = null;
    let depth = 0;
    for (let turn = n; Date.now() < deadline; turn++) {
      const query = [() => '', () => 'status=done', () => week, () => (cursor ? `cursor=${cursor}` : '')][turn % 4]!();
      const answer = await get(query);
      latencies.push(answer.ms);
      if (!answer.ok) errors++;
      if (turn % 4 === 0 || turn % 4 === 3) {
        cursor = ++depth === 50 ? null : answer.cursor;
        if (cursor === null) depth = 0;
      }
    }
  };
  await Promise.all(Array.from({ length: LIST_CLIENTS }, (_, n) => client(n)));
  return { p95: percentile(latencies, 95), count: latencies.length, errors };
}

interface Measures {
  create: () => Promise<LoadResult>;
  get: () => Promise<LoadResult>;
  list: () => Promise<LoadResult>;
  outbox: () => Promise<LoadResult>;
  reconcile: () => Promise<LoadResult>;
}

/** The side's measures; the list's figure is the inverse of its 95th percentile (so a ratio of two is the ratio of speeds), its p95 kept in `p95s`. */
function measuresOf(side: Side, p95s: number[]): Measures {
  const key = { 'x-api-key': side.quipu.apiKey };
  return {
    create: () => load({ ...side.create, connections: CONNECTIONS, seconds: SECONDS }),
    get: () => load({ url: `${side.quipu.url}/v3/payments/${side.readId}`, headers: key, connections: CONNECTIONS, seconds: SECONDS }),
    list: async () => {
      const listed = await listings(side, SECONDS);
      p95s.push(listed.p95);
      return { rps: 1000 / listed.p95, p50: Number.NaN, p99: Number.NaN, errors: listed.errors, non2xx: 0 };
    },
    outbox: () => outboxCycle(side.runtime.ctx, side.merchant.receiverId),
    reconcile: () => reconcile(side.runtime.ctx, side.merchant),
  };
}

/**
 * The prune job's batches over the history's oldest year (a retention of 365 days), for `seconds`,
 * while autocannon creates payments on the same database: messages/s pruned, and the creates.
 */
async function pruneUnderLoad(side: Side, seconds: number): Promise<{ messages: number; seconds: number; creates: LoadResult }> {
  const ctx = side.runtime.ctx;
  const before = retentionCutoff(ctx.clocks.now().getTime(), 365);
  const creating = load({ ...side.create, connections: CONNECTIONS, seconds });
  const started = performance.now();
  let messages = 0;
  while (performance.now() - started < seconds * 1000) {
    const pruned = await pruneMessageBatch(ctx.db, before, PRUNE_BATCH);
    messages += pruned;
    if (pruned < PRUNE_BATCH) break;
  }
  const elapsed = (performance.now() - started) / 1000;
  return { messages, seconds: elapsed, creates: await creating };
}

export async function benchYearsOfData(): Promise<string> {
  const sides: Side[] = [];
  const startedAt = new Date();
  const loadBefore = os.loadavg()[0]!;
  try {
    const empty = await openSide();
    sides.push(empty);
    const loaded = await openSide();
    sides.push(loaded);
    // Each database gets the same start: reconciled payments with delivered notifications, which
    // are also the templates the history is copied from.
    for (const side of sides) {
      await reconcile(side.runtime.ctx, side.merchant);
      await outboxCycle(side.runtime.ctx, side.merchant.receiverId);
    }
    const template = await loaded.runtime.ctx.db
      .selectFrom('messages')
      .select('subject_id')
      .where('receiver_id', '=', loaded.merchant.receiverId)
      .where('status', '=', 'delivered')
      .limit(1)
      .executeTakeFirstOrThrow();
    const history: History = await writeHistory(
      loaded.quipu.databaseUrl,
      { receiverId: loaded.merchant.receiverId, paidPaymentId: template.subject_id },
      PAYMENTS,
      ACCOUNTS,
      Date.now(),
    );
    // A payment of the history for GET (days old); a week a year ago for the list's dates.
    loaded.readId = history.sampleIds[history.sampleIds.length - 1]!;
    loaded.weekFrom = Date.now() - 365 * DAY;

    const emptyP95: number[] = [];
    const loadedP95: number[] = [];
    const e = measuresOf(empty, emptyP95);
    const l = measuresOf(loaded, loadedP95);
    for (const m of [e, l]) for (const warm of [m.create, m.get, m.list]) await warm();
    const rounds = await inRounds({
      emptyCreate: e.create,
      loadedCreate: l.create,
      emptyGet: e.get,
      loadedGet: l.get,
      emptyList: e.list,
      loadedList: l.list,
      emptyOutbox: e.outbox,
      loadedOutbox: l.outbox,
      emptyReconcile: e.reconcile,
      loadedReconcile: l.reconcile,
    });
    const pruned = await pruneUnderLoad(loaded, PRUNE_SECONDS);

    const mean = (r: Rounds) => r.reduce((sum, x) => sum + x.rps, 0) / r.length;
    const meanOf = (values: number[]) => values.slice(-ROUNDS).reduce((sum, x) => sum + x, 0) / ROUNDS;
    const line = (name: string, unit: string, emptyRounds: Rounds, loadedRounds: Rounds, show: (r: Rounds) => string = (r) => fmt.rps(mean(r))) => {
      const each = ratios(loadedRounds, emptyRounds);
      const ratio = median(each);
      return `| ${name} | ${unit} | ${show(emptyRounds)} | ${show(loadedRounds)} | ${each.map(fmt.pct).join(' · ')} | **${fmt.pct(ratio)}** | ${ratio >= LEAST ? 'met' : '**missed**'} |`;
    };
    const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;
    return [
      '## Years of data',
      '',
      `Measured ${startedAt.toISOString()} (\`npm run bench years-of-data\`); the machine's load average was ${loadBefore.toFixed(1)} on ${os.cpus().length} cores at the start and ${os.loadavg()[0]!.toFixed(1)} at the end. Two databases on the same PostgreSQL server, each with its own \`quipu serve\` (RUN_WORKER=false: no worker and no jobs, so only the bench writes) and the bench's own runtime for the in-process measures. Both start alike: one account, ${RECONCILED.toLocaleString('en-US')} payments reconciled and their notifications delivered. Then one of them gets two years of history written by the database itself (\`bench/years-of-data-load.ts\`, INSERT … SELECT over generate_series, every row a copy of one Quipu wrote there, with its own ids, account and dates): **${history.payments.toLocaleString('en-US')} payments** over ${history.accounts + 1} accounts (a tenth of them the measured account's), four in five paid, each paid one with its bank credit (${history.credits.toLocaleString('en-US')}) and its notification (${history.messages.toLocaleString('en-US')} messages, delivered, three in ten after two failed attempts: ${history.attempts.toLocaleString('en-US')} attempts), so **${(history.messages + history.attempts).toLocaleString('en-US')} rows of messages and attempts**. Writing took ${Math.round(history.writeSeconds)} s and building the indexes again and vacuuming ${Math.round(history.indexSeconds)} s (dropped for the load, as a restore does); the database then held ${gb(history.bytes)}. The two are then measured in ${ROUNDS} alternating rounds (in the table's order, and in reverse every other round), ${SECONDS} s a measure where it is timed: creates (by a second account, so the listed one's list holds no flood of new payments) and reads with autocannon (${CONNECTIONS} connections; the read is of a payment of the history on the loaded side), the list by ${LIST_CLIENTS} clients taking in turn the first page, \`status=done\`, a week of dates (a year ago on the loaded side) and the next page of a walk 50 pages deep; the outbox cycle is the worker's claim query and the recording of a delivered attempt for each claimed message (batches of the default ${empty.runtime.ctx.config.deliveryBatchSize}), over ${OUTBOX_MESSAGES.toLocaleString('en-US')} due messages a round; reconciliation records credits for ${RECONCILED.toLocaleString('en-US')} new payments a round through \`recordCredits\` (${CREDITS_PER_CALL} a call, eight calls at once, each waiting until durable). A ratio is loaded ÷ empty in the same round (for the list, empty p95 ÷ loaded p95); the target applies to the median.`,
      '',
      '| measure | unit | empty | loaded | loaded ÷ empty per round | median | target ≥ 80% |',
      '| --- | --- | ---: | ---: | ---: | ---: | --- |',
      line('POST /v3/payments', 'req/s', rounds.emptyCreate, rounds.loadedCreate),
      line('GET /v3/payments/{id}', 'req/s', rounds.emptyGet, rounds.loadedGet),
      line('GET /quipu/v1/payments', 'p95', rounds.emptyList, rounds.loadedList, (r) => fmt.ms(meanOf(r === rounds.emptyList ? emptyP95 : loadedP95))),
      line('outbox: claim + record attempts', 'messages/s', rounds.emptyOutbox, rounds.loadedOutbox),
      line('reconciliation (recordCredits)', 'credits/s', rounds.emptyReconcile, rounds.loadedReconcile),
      '',
      `Pruning the loaded history's oldest year (MESSAGE_RETENTION_DAYS=365: the \`prune-expired\` job's batches of ${PRUNE_BATCH.toLocaleString('en-US')} messages and their attempts, a transaction each) for ${Math.round(pruned.seconds)} s while autocannon creates payments on the same database: **${fmt.rps(pruned.messages / pruned.seconds)} messages/s** pruned with their attempts (${pruned.messages.toLocaleString('en-US')} in all); creates meanwhile ${fmt.rps(pruned.creates.rps)} req/s (p99 ${fmt.ms(pruned.creates.p99)}, ${pruned.creates.errors + pruned.creates.non2xx} errors), ${fmt.pct(pruned.creates.rps / mean(rounds.loadedCreate))} of the loaded database's mean above.`,
      '',
    ].join('\n');
  } finally {
    for (const side of sides.reverse()) await closeSide(side);
  }
}
