// The payments list (GET /quipu/v1/payments) with 100,000 payments in one account, on SQLite and on
// PostgreSQL: a `quipu serve` process per database, the payments written straight into its
// database, then clients that each send a mix of listings one after another, timing every answer,
// and the 95th percentile per kind of filter against the 100 ms target. On PostgreSQL, then, the
// plans of the searches, and creates timed one by one under each way the trigram index can keep its
// pending list (migration 033 chose by these figures).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { ExplainNode, type Kysely, type KyselyPlugin, SelectQueryNode, sql } from 'kysely';
import { newNotificationToken, newPaymentId } from '../src/domain/ids.js';
import { openDatabase } from '../src/store/database.js';
import { listPaymentRows } from '../src/store/payment-list.js';
import type { DB, PaymentRow } from '../src/store/schema.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { freePort, quipu, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';
import { fmt } from './load.js';
import { inRounds, median, ROUNDS } from './rounds.js';

const PAYMENTS = Number(process.env.BENCH_LIST_PAYMENTS ?? 100_000);
/** Another account's payments, in the same tables and indexes. */
const OTHERS = PAYMENTS / 10;
// Two listings at every moment for one account, each client asking again as soon as it has its
// answer: more than a dashboard's users and a script paging through ask of one account.
const CLIENTS = Number(process.env.BENCH_LIST_CLIENTS ?? 2);
const SECONDS = Number(process.env.BENCH_LIST_SECONDS ?? 20);
const WARM_UP_SECONDS = 3;
const TARGET_MS = 100;
const DAY = 86_400_000;
const CHUNK = 500;

const WORDS = ['Pedido', 'Orden', 'Suscripción', 'Factura', 'Curso', 'Entrada', 'Donación', 'Reserva'];
const ITEMS = ['zapatillas', 'polera', 'libro', 'café', 'mochila', 'audífonos', 'lámpara', 'silla', 'mesa', 'bicicleta'];
/** Roughly what an account's payments end in (status, status_detail, share). */
const STATES: [string, string, number][] = [
  ['done', 'normal', 0.6],
  ['pending', 'pending', 0.25],
  ['verifying', 'pending', 0.05],
  ['done', 'marked-paid-by-receiver', 0.04],
  ['pending', 'rejected-by-payer', 0.03],
  ['done', 'reversed', 0.02],
  ['pending', 'marked-as-abuse', 0.01],
];

/** A fixed sequence, so every run lists the same payments. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

function stateOf(u: number): [string, string] {
  let sum = 0;
  for (const [status, detail, share] of STATES) {
    sum += share;
    if (u < sum) return [status, detail];
  }
  return ['done', 'normal'];
}

interface Written {
  ids: string[];
  orderNumbers: number[];
  /** When the newest and the oldest were created. */
  newest: number;
  oldest: number;
  seconds: number;
}

/**
 * `count` payments of `receiverId` over the year before `now`, copies of `source` with their own
 * ids, subjects, states and payers; a few share a millisecond. Multi-row inserts, a transaction
 * per 10,000.
 */
async function writePayments(url: string, source: PaymentRow, receiverId: number, count: number, now: number, seed: number): Promise<Written> {
  const random = seeded(seed);
  const { db, dialect, close } = openDatabase(url);
  const started = Date.now();
  const ids: string[] = [];
  const orderNumbers: number[] = [];
  try {
    let rows: PaymentRow[] = [];
    let at = now;
    for (let i = 0; i < count; i++) {
      // About 315 s apart on average over a year; one in twenty in the same millisecond as the one before.
      if (random() >= 0.05) at -= Math.floor((random() * 2 * (365 * DAY)) / count);
      const [status, detail] = stateOf(random());
      const paid = status === 'done';
      const order = 1_000_000 + seed * 10_000_000 + i;
      const paymentId = newPaymentId(randomBytes);
      const amount = (1 + Math.floor(random() * 500)) * 1000 * 10_000;
      ids.push(paymentId);
      orderNumbers.push(order);
      rows.push({
        ...source,
        payment_id: paymentId,
        receiver_id: receiverId,
        notification_token: newNotificationToken(randomBytes, at),
        status,
        status_detail: detail,
        subject: `${pick(random, WORDS)} ${order} ${pick(random, ITEMS)}`,
        amount,
        refunded: detail === 'reversed' ? amount : 0,
        transaction_id: random() < 0.8 ? `INV-${order}` : null,
        payer_email: paid ? `cliente${Math.floor(random() * 20_000)}@correo${Math.floor(random() * 5)}.cl` : null,
        conciliation_at: paid ? at + 60_000 : null,
        expires_at: at + DAY,
        created_at: at,
        updated_at: at,
      });
      if (rows.length === 10_000 || i === count - 1) {
        const batch = rows;
        await db.transaction().execute(async (trx) => {
          for (let c = 0; c < batch.length; c += CHUNK)
            await trx
              .insertInto('payments')
              .values(batch.slice(c, c + CHUNK))
              .execute();
        });
        rows = [];
      }
    }
    // What autovacuum does on its own after this many inserts, without waiting for it.
    if (dialect === 'postgres') await sql`analyze payments`.execute(db);
    return { ids, orderNumbers, newest: now, oldest: at, seconds: (Date.now() - started) / 1000 };
  } finally {
    await close();
  }
}

const KINDS = [
  'no filter',
  'status or status_detail',
  'a week (dates)',
  'q: a word in a tenth of the subjects',
  'q: one order number in a subject',
  'q: a payment_id',
  'next page (cursor)',
] as const;
type Kind = (typeof KINDS)[number];

interface Listing {
  kind: Kind;
  query: string;
  /** The one payment it must find, when there is one. */
  finds?: string;
}

const STATUS_QUERIES = [
  'status=done',
  'status=pending',
  'status=verifying',
  'status_detail=reversed',
  'status_detail=marked-as-abuse',
  'status=done&status_detail=marked-paid-by-receiver',
];
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Client {
  random: () => number;
  /** Where the client's walk through the unfiltered listing is: up to 50 pages deep, then from the first page again. */
  cursor: string | null;
  depth: number;
}

interface Page {
  items?: { payment_id: string }[];
  next_cursor?: string | null;
}

function nextListing(client: Client, kind: Kind, written: Written): Listing {
  const { random } = client;
  const some = Math.floor(random() * written.ids.length);
  switch (kind) {
    case 'no filter':
      return { kind, query: '' };
    case 'status or status_detail':
      return { kind, query: pick(random, STATUS_QUERIES) };
    case 'a week (dates)': {
      const from = written.oldest + random() * (written.newest - written.oldest - 7 * DAY);
      return { kind, query: `from=${isoDate(from)}&to=${isoDate(from + 7 * DAY)}` };
    }
    case 'q: a word in a tenth of the subjects':
      return { kind, query: `q=${encodeURIComponent(pick(random, ITEMS))}` };
    case 'q: one order number in a subject':
      return { kind, query: `q=${written.orderNumbers[some]}`, finds: written.ids[some] };
    case 'q: a payment_id':
      return { kind, query: `q=${written.ids[some]}`, finds: written.ids[some] };
    case 'next page (cursor)':
      return { kind, query: `cursor=${client.cursor}` };
  }
}

const get = async (url: string, apiKey: string, query: string) => {
  const res = await fetch(`${url}/quipu/v1/payments?${query}`, { headers: { 'x-api-key': apiKey } });
  return { status: res.status, page: (await res.json()) as Page };
};

interface Timed {
  latencies: Record<Kind, number[]>;
  errors: number;
  requests: number;
}

/** `CLIENTS` clients, each sending the kinds in turn, one request at a time, for `seconds`. */
async function drive(url: string, apiKey: string, written: Written, seconds: number, seed: number): Promise<Timed> {
  const timed: Timed = { latencies: Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, number[]>, errors: 0, requests: 0 };
  const deadline = Date.now() + seconds * 1000;
  const run = async (n: number) => {
    const client: Client = { random: seeded(seed * 100 + n), cursor: null, depth: 0 };
    const restart = async () => {
      client.cursor = (await get(url, apiKey, '')).page.next_cursor ?? null;
      client.depth = 0;
    };
    await restart();
    for (let turn = n; Date.now() < deadline; turn++) {
      const listing = nextListing(client, KINDS[turn % KINDS.length]!, written);
      const started = performance.now();
      const { status, page } = await get(url, apiKey, listing.query);
      timed.latencies[listing.kind].push(performance.now() - started);
      timed.requests++;
      const found = page.items?.map((i) => i.payment_id) ?? [];
      if (status !== 200 || (listing.finds !== undefined && (found.length !== 1 || found[0] !== listing.finds))) timed.errors++;
      if (listing.kind === 'next page (cursor)') {
        client.cursor = page.next_cursor ?? null;
        if (++client.depth === 50 || client.cursor === null) await restart();
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, n) => run(n)));
  return timed;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** The 1-minute load average: every figure of this shared machine comes with it. */
const loadAverage = () => os.loadavg()[0]!.toFixed(1);

/** Runs the store's own select as EXPLAIN, for the plan of exactly the query a listing sends. */
const explaining: KyselyPlugin = {
  transformQuery: ({ node }) => (SelectQueryNode.is(node) ? { ...node, explain: ExplainNode.create() } : node),
  transformResult: async ({ result }) => result,
};

/** The indexes PostgreSQL's plan reads for each kind of search, on the bench's 100,000 payments. */
async function searchPlans(db: Kysely<DB>, receiverId: number, written: Written): Promise<[Kind, string[]][]> {
  const searches: [Kind, string][] = [
    ['q: a word in a tenth of the subjects', 'mochila'],
    ['q: one order number in a subject', String(written.orderNumbers[0])],
    ['q: a payment_id', written.ids[0]!],
  ];
  const plans: [Kind, string[]][] = [];
  for (const [kind, q] of searches) {
    const lines = (await listPaymentRows(db.withPlugin(explaining), receiverId, { q }, 50)) as unknown as { 'QUERY PLAN': string }[];
    const indexes = lines.flatMap((line) => [...line['QUERY PLAN'].matchAll(/Index (?:Only )?Scan (?:Backward )?(?:using|on) (\w+)/g)].map((m) => m[1]!));
    plans.push([kind, [...new Set(indexes)]]);
  }
  return plans;
}

/** Creates a round sends under each setting: the default 4 MB pending list holds some 5,000 of them, so it fills four times. */
const CREATES = Number(process.env.BENCH_LIST_CREATES ?? 20_000);
/** As many connections as the v3 API's load (bench/api.ts), each sending its next create once the last is answered. */
const CREATE_CLIENTS = 32;
/** A create answered slower than this waited for something other than its own work. */
const STALL_MS = 250;

/** How payments_list_search may keep its pending list: as migration 016 made it (the yardstick), with a smaller list, and without one (migration 033). */
const PENDING_LISTS = {
  'fastupdate on, 4 MB list (016, the yardstick)': 'reset (fastupdate, gin_pending_list_limit)',
  'fastupdate on, 256 kB list': 'set (fastupdate = on, gin_pending_list_limit = 256)',
  'fastupdate off (033)': 'set (fastupdate = off)',
} as const;
type PendingList = keyof typeof PENDING_LISTS;

interface CreateRound {
  rps: number;
  latencies: number[];
  errors: number;
  /** Pages of the pending list left at the end of the round. */
  pending: number;
  /** The 1-minute load average at the round's start. */
  load: string;
}

let nextOrder = 50_000_000;

/** `CREATES` creates by `CREATE_CLIENTS` clients, each payment with its own order number in its subject and transaction_id, each timed from the request to its answer. */
async function createPayments(url: string, apiKey: string, random: () => number): Promise<Omit<CreateRound, 'pending' | 'load'>> {
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const client = async () => {
    while (sent < CREATES) {
      sent++;
      const order = nextOrder++;
      const body = JSON.stringify({
        amount: 1000,
        currency: 'CLP',
        subject: `${pick(random, WORDS)} ${order} ${pick(random, ITEMS)}`,
        transaction_id: `INV-${order}`,
        return_url: 'https://shop.example/return',
        notify_url: 'https://shop.example/notify',
      });
      const started = performance.now();
      const res = await fetch(`${url}/v3/payments`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body });
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      if (res.status !== 200) errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CREATE_CLIENTS }, client));
  return { rps: latencies.length / ((performance.now() - started) / 1000), latencies, errors };
}

/** Each setting in turn, in rounds: the index set so, its pending list emptied (untimed, so every round fills it as often), then the creates. */
async function createsByPendingList(url: string, apiKey: string, db: Kysely<DB>): Promise<Record<PendingList, CreateRound[]>> {
  const random = seeded(3);
  const clean = async () => (await sql<{ pages: string }>`select gin_clean_pending_list('payments_list_search') as pages`.execute(db)).rows[0]!.pages;
  const scenario = (setting: PendingList) => async (): Promise<CreateRound> => {
    await sql.raw(`alter index payments_list_search ${PENDING_LISTS[setting]}`).execute(db);
    await clean();
    const load = loadAverage();
    const sent = await createPayments(url, apiKey, random);
    return { ...sent, pending: Number(await clean()), load };
  };
  const settings = Object.keys(PENDING_LISTS) as PendingList[];
  return inRounds(Object.fromEntries(settings.map((setting) => [setting, scenario(setting)])) as Record<PendingList, () => Promise<CreateRound>>);
}

interface Measured {
  database: string;
  written: Written;
  timed: Timed;
  load: { before: string; after: string };
  plans?: [Kind, string[]][];
  creates?: Record<PendingList, CreateRound[]>;
}

async function measure(kind: 'sqlite' | 'postgres', adminUrl: string): Promise<Measured> {
  const database = await createTestDatabase(kind, adminUrl);
  const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn' };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = startServerProcess({ ...env, PORT: String(port), DEMO_ACCOUNT: 'false' });
  try {
    await waitForHttp(`${url}/readyz`);
    const account = JSON.parse((await quipu(['merchants', 'create', '--name', 'Bench', '--json'], env)).stdout) as { api_key: string; receiver_id: number };
    const other = JSON.parse((await quipu(['merchants', 'create', '--name', 'Other', '--json'], env)).stdout) as { api_key: string; receiver_id: number };
    const created = await fetch(`${url}/v3/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': account.api_key },
      body: JSON.stringify({
        amount: 1000,
        currency: 'CLP',
        subject: 'Bench',
        return_url: 'https://shop.example/return',
        notify_url: 'https://shop.example/notify',
      }),
    }).then((r) => r.json() as Promise<{ payment_id: string }>);
    const opened = openDatabase(database.url);
    const source = await opened.db.selectFrom('payments').selectAll().where('payment_id', '=', created.payment_id).executeTakeFirstOrThrow();
    await opened.close();
    const now = Date.now() - DAY;
    await writePayments(database.url, source, other.receiver_id, OTHERS, now, 2);
    const written = await writePayments(database.url, source, account.receiver_id, PAYMENTS, now, 1);
    await drive(url, account.api_key, written, WARM_UP_SECONDS, 9);
    const before = loadAverage();
    const timed = await drive(url, account.api_key, written, SECONDS, 1);
    const measured: Measured = { database: kind === 'sqlite' ? 'SQLite' : 'PostgreSQL', written, timed, load: { before, after: loadAverage() } };
    if (kind === 'postgres') {
      const { db, close } = openDatabase(database.url);
      try {
        measured.plans = await searchPlans(db, account.receiver_id, written);
        // By the other account, so the listed one's pages stay as measured above.
        measured.creates = await createsByPendingList(url, other.api_key, db);
      } finally {
        await close();
      }
    }
    return measured;
  } finally {
    await server.stop();
    await database.drop();
  }
}

function rows(m: Measured): string[] {
  return KINDS.map((kind) => {
    const values = m.timed.latencies[kind];
    const p95 = percentile(values, 95);
    return `| ${m.database} | ${kind} | ${values.length.toLocaleString('en-US')} | ${fmt.ms(percentile(values, 50))} | **${fmt.ms(p95)}** | ${fmt.ms(Math.max(...values))} | < ${TARGET_MS} ms ${p95 < TARGET_MS ? 'met' : '**missed**'} |`;
  });
}

/** Whether the PostgreSQL server runs autovacuum, which moves pending lists too. */
async function autovacuum(adminUrl: string | undefined): Promise<string> {
  if (!adminUrl) return 'no PostgreSQL';
  const { db, close } = openDatabase(adminUrl);
  try {
    return (await sql<{ autovacuum: string }>`show autovacuum`.execute(db)).rows[0]!.autovacuum;
  } finally {
    await close();
  }
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

function createRows(byList: Record<PendingList, CreateRound[]>): string[] {
  const yardstick = byList['fastupdate on, 4 MB list (016, the yardstick)'];
  return (Object.entries(byList) as [PendingList, CreateRound[]][]).map(([setting, rounds]) => {
    const all = rounds.flatMap((r) => r.latencies);
    const rps = rounds.map((r, i) => r.rps / yardstick[i]!.rps);
    const max = rounds.map((r, i) => Math.max(...r.latencies) / Math.max(...yardstick[i]!.latencies));
    const cells = [
      setting,
      fmt.rps(mean(rounds.map((r) => r.rps))),
      fmt.ms(percentile(all, 50)),
      fmt.ms(mean(all)),
      fmt.ms(percentile(all, 99)),
      fmt.ms(percentile(all, 99.9)),
      `**${fmt.ms(Math.max(...all))}**`,
      all.filter((ms) => ms > STALL_MS).length.toLocaleString('en-US'),
      `${rps.map(fmt.pct).join(' · ')}: **${fmt.pct(median(rps))}**`,
      `${max.map(fmt.pct).join(' · ')}: **${fmt.pct(median(max))}**`,
      rounds.map((r) => r.pending).join(' · '),
      String(rounds.reduce((sum, r) => sum + r.errors, 0)),
      rounds.map((r) => r.load).join(' · '),
    ];
    return `| ${cells.join(' | ')} |`;
  });
}

function createsSection(m: Measured): string[] {
  if (!m.creates) return [];
  return [
    `### Creates and the trigram index's pending list (${m.database})`,
    '',
    `The same server and database, after the listings: POST /v3/payments by the other account, ${CREATE_CLIENTS} clients in the bench process each sending its next create once the last is answered, ${CREATES.toLocaleString('en-US')} creates a round under each setting of \`payments_list_search\` (\`ALTER INDEX … ${PENDING_LISTS['fastupdate off (033)']}\` and the like, with the server idle), in ${ROUNDS} rounds, in the table's order and in reverse on alternate rounds. Each payment has its own subject (words and an order number, as above) and transaction_id. Before each, the index's pending list is emptied (\`gin_clean_pending_list\`, untimed), so every round fills a 4 MB list as often; the pages left pending at the end are counted the same way. Whether autovacuum, which also empties pending lists, ran: see the date line above. Each create is timed from the request to its answer; the load averages are the 1-minute figure at each round's start, on the machine's ${os.cpus().length} cores; the columns are over all the rounds' creates, the ratios per round against the 4 MB list (016) in the same round, then their median.`,
    '',
    `| pending list | creates/s | p50 | mean | p99 | p99.9 | max | over ${STALL_MS} ms | creates/s ÷ 4 MB list, per round: median | max ÷ 4 MB list, per round: median | pages pending after each round | errors | load average at each round's start |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | ---: | --- |',
    ...createRows(m.creates),
    '',
  ];
}

export async function benchPaymentList(): Promise<string> {
  const startedAt = new Date();
  const pgAdmin = process.env.BENCH_DATABASE_URL;
  const measured: Measured[] = [await measure('sqlite', '')];
  if (pgAdmin) measured.push(await measure('postgres', pgAdmin));
  const summary = measured
    .map(
      (m) =>
        `${m.database}: written in ${m.written.seconds.toFixed(1)} s; ${fmt.rps(m.timed.requests / SECONDS)} listings/s, ${m.timed.errors} errors; load average ${m.load.before} at the start of its listings, ${m.load.after} at their end, on ${os.cpus().length} cores`,
    )
    .join('; ');
  const plans = measured.flatMap((m) => (m.plans ?? []).map(([kind, indexes]) => `${kind}: ${indexes.map((i) => `\`${i}\``).join(', ') || 'no index'}`));
  return [
    '## Payments list',
    '',
    `Measured ${startedAt.toISOString()} (\`npm run bench payment-list\`); PostgreSQL's autovacuum: ${await autovacuum(pgAdmin)}.`,
    '',
    `GET /quipu/v1/payments on a \`quipu serve\` process per database (LOG_LEVEL=warn, defaults otherwise) with ${PAYMENTS.toLocaleString('en-US')} payments in one account, created over a year (one in twenty in the same millisecond as the one before), in the states an account's payments end in (60% done, 25% pending, the rest verifying, marked paid, rejected, refunded, abusive), and ${OTHERS.toLocaleString('en-US')} in another account. The payments are written straight into the server's database (multi-row inserts, \`bench/payment-list.ts\`); on PostgreSQL the bench then runs ANALYZE, as autovacuum would after so many inserts. ${CLIENTS} clients in the bench process (\`BENCH_LIST_CLIENTS\`) then each send listings one after another, the next as soon as the last is answered, for ${SECONDS} s (after ${WARM_UP_SECONDS} s of warm-up), taking the kinds below in turn, 50 payments a page (the default): a status or status_detail among six, from the commonest (60% of the payments) to the rarest (1%); a week of dates; a word that a tenth of the subjects hold (some with accents); an order number that one subject holds and a payment_id, both checked to find exactly their payment; and the next page of the client's walk through the unfiltered listing, which starts again from the first page (untimed) after 50 pages. Each answer is timed from the request to its last byte.`,
    '',
    '| database | listing | requests | p50 | p95 | max | target |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...measured.flatMap(rows),
    '',
    `${summary}.`,
    '',
    ...(plans.length
      ? [`The indexes in PostgreSQL's plans (EXPLAIN of the store's own query, \`listPaymentRows\`) for a search of ${plans.join('; ')}.`, '']
      : []),
    ...measured.flatMap(createsSection),
  ].join('\n');
}
