// Load on the v3 API: POST /v3/payments and GET /v3/payments/{id} against real server processes on
// SQLite and on PostgreSQL, next to a bare Fastify baseline and a bare `pg` insert loop, all in the
// same run on the same machine, in paired rounds (rounds.ts).
import { createTestDatabase } from '../test/helpers/database.js';
import { freePort, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';
import { fmt, load, type LoadOptions, type LoadResult } from './load.js';
import { pgInsertRate } from './pg-insert.js';
import { quipuCommand } from './quipu-command.js';
import { inRounds, mean, median, ratios as roundRatios, ROUND_SECONDS as SECONDS, ROUNDS, type Rounds } from './rounds.js';
import { spawn } from 'node:child_process';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PG_CLIENTS = 10;
const PG_ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PAYMENT = JSON.stringify({
  amount: 1000,
  currency: 'CLP',
  subject: 'Bench order',
  transaction_id: 'INV-1',
  return_url: 'https://shop.example/return',
  notify_url: 'https://shop.example/notify',
});
const JSON_BODY = { 'content-type': 'application/json' };

interface Running {
  stop(): Promise<void>;
}

interface Baseline extends Running {
  get: LoadOptions;
  post: LoadOptions;
}

export interface Quipu extends Running {
  url: string;
  apiKey: string;
  pid: number;
  create: LoadOptions;
  get: LoadOptions;
  databaseUrl: string;
  dataDir: string;
}

export async function startBaseline(): Promise<Baseline> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./baseline-server.ts', import.meta.url).pathname], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout!.on('data', (d) => String(d).includes('listening') && resolve()));
  const url = `http://127.0.0.1:${port}`;
  return {
    get: { url: `${url}/hello` },
    post: { url: `${url}/echo`, method: 'POST', headers: JSON_BODY, body: PAYMENT },
    stop: async () => void child.kill(),
  };
}

/** `quipu serve` (started by node with `entry`, see startServerProcess) on a fresh database, with an account (made by the same build) and one payment to read. */
export async function startQuipu(
  kind: 'sqlite' | 'postgres',
  settings: Record<string, string> = {},
  accountFlags: string[] = [],
  entry?: string[],
): Promise<Quipu> {
  const db = await createTestDatabase(kind, PG_ADMIN);
  // MALLOC_ARENA_MAX=2, as docs/configuration.md recommends for serve and worker on Linux.
  const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, LOG_LEVEL: 'warn', MALLOC_ARENA_MAX: '2', ...settings };
  const port = await freePort();
  const server = startServerProcess({ ...env, PORT: String(port), DEMO_ACCOUNT: 'false' }, ['serve'], entry);
  await waitForHttp(`http://127.0.0.1:${port}/readyz`);
  const account = JSON.parse(await quipuCommand(['merchants', 'create', '--name', 'Bench', '--json', ...accountFlags], env, entry));
  const url = `http://127.0.0.1:${port}`;
  const key = { 'x-api-key': account.api_key };
  const created = (await fetch(`${url}/v3/payments`, { method: 'POST', headers: { ...JSON_BODY, ...key }, body: PAYMENT }).then((r) => r.json())) as {
    payment_id: string;
  };
  const pid = server.child.pid!;
  return {
    url,
    apiKey: account.api_key,
    pid,
    create: { url: `${url}/v3/payments`, method: 'POST', headers: { ...JSON_BODY, ...key }, body: PAYMENT, pid },
    get: { url: `${url}/v3/payments/${created.payment_id}`, headers: key, pid },
    databaseUrl: db.url,
    dataDir: db.dataDir,
    stop: async () => {
      await server.stop();
      await db.drop();
    },
  };
}

const run = (options: LoadOptions, seconds = SECONDS) => load({ connections: CONNECTIONS, seconds, ...options });

interface Target {
  yardstick: Rounds;
  least: number;
  label: string;
}

export function row(name: string, rounds: Rounds, target?: Target | { yardstick: Rounds }): string {
  const r = mean(rounds);
  const ratios = target ? roundRatios(rounds, target.yardstick) : [];
  const ratio = target ? median(ratios) : undefined;
  const goal = target && 'least' in target ? `${target.label} ${ratio! >= target.least ? 'met' : '**missed**'}` : '';
  const cells = [
    name,
    fmt.rps(r.rps),
    // The bare pg loop counts rows, it times no requests.
    Number.isNaN(r.p50) ? '' : fmt.ms(r.p50),
    Number.isNaN(r.p99) ? '' : fmt.ms(r.p99),
    String(r.errors + r.non2xx),
    ratios.map(fmt.pct).join(' · '),
    ratio === undefined ? '' : `**${fmt.pct(ratio)}**`,
    goal,
    r.maxRssMb ? `${Math.round(r.maxRssMb)} MB` : '',
  ];
  return `| ${cells.join(' | ')} |`;
}

/** Before reads were grouped, PostgreSQL GETs ran at 7% of the bare GET of the same run; the target is three times that. */
const PG_GET_LEAST = 3 * 0.07;

const pgInserts = (url: string) => async (): Promise<LoadResult> => ({
  rps: await pgInsertRate(url, PG_CLIENTS, SECONDS),
  p50: Number.NaN,
  p99: Number.NaN,
  errors: 0,
  non2xx: 0,
});

export async function benchApi(): Promise<string> {
  const servers: Running[] = [];
  const up = <T extends Running>(server: T) => (servers.push(server), server);
  const down = async (...stopping: Running[]) => {
    for (const server of stopping) {
      servers.splice(servers.indexOf(server), 1);
      await server.stop();
    }
  };
  try {
    const base = up(await startBaseline());
    // SQLite first, PostgreSQL after, with only the servers of the phase up: PostgreSQL's own
    // work after a load (checkpoints, autovacuum) would otherwise weigh on the SQLite rounds.
    const sqlite = up(await startQuipu('sqlite'));
    // The price of durability: the same creates when SQLite may lose its last commits to a power cut.
    const sqliteNormal = up(await startQuipu('sqlite', { SQLITE_SYNCHRONOUS: 'normal' }));
    for (const options of [base.get, base.post, sqlite.get, sqlite.create, sqliteNormal.create]) await run(options, 2);
    const lite = await inRounds({
      baseGet: () => run(base.get),
      sqliteGet: () => run(sqlite.get),
      basePost: () => run(base.post),
      sqliteCreate: () => run(sqlite.create),
      sqliteNormalCreate: () => run(sqliteNormal.create),
    });
    await down(sqlite, sqliteNormal);

    const postgres = up(await startQuipu('postgres'));
    for (const options of [postgres.create, postgres.get]) await run(options, 2);
    const pg = await inRounds({
      inserts: pgInserts(postgres.databaseUrl),
      create: () => run(postgres.create),
      baseGet: () => run(base.get),
      get: () => run(postgres.get),
    });

    const peak = Math.max(...[lite.sqliteGet, lite.sqliteCreate, lite.sqliteNormalCreate, pg.create, pg.get].flat().map((r) => r.maxRssMb ?? 0));
    const lines = [
      '## v3 API under load',
      '',
      `autocannon from a separate process, ${CONNECTIONS} keep-alive connections, against the bare Fastify baseline and \`quipu serve\` processes (LOG_LEVEL=warn, MALLOC_ARENA_MAX=2) on fresh databases, with their defaults: on SQLite every answer waits until its commits are on disk (\`SQLITE_SYNCHRONOUS=full\`); the row with \`normal\` shows what that durability costs creates. The servers of a phase (SQLite, then PostgreSQL) stay up through it; after a warm-up of each, the scenarios run in ${ROUNDS} rounds of ${SECONDS} s each, in the table's order and in reverse on alternate rounds. A ratio compares a scenario with its yardstick in the same round, because the speed of this shared machine drifts by a fifth within minutes; the target applies to the median of the rounds. req/s, latencies and memory are means (peaks) over the rounds.`,
      '',
      '| scenario | req/s | p50 | p99 | errors | ratio per round | ratio (median) | target | peak RSS |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
      row('baseline: bare Fastify GET', lite.baseGet),
      row('SQLite: GET /v3/payments/{id}', lite.sqliteGet, { yardstick: lite.baseGet, least: 0.5, label: '≥ 50% of bare GET' }),
      row('baseline: bare Fastify POST (schema-validated)', lite.basePost),
      row('SQLite: POST /v3/payments', lite.sqliteCreate, { yardstick: lite.basePost, least: 0.25, label: '≥ 25% of bare POST' }),
      row('SQLite, SQLITE_SYNCHRONOUS=normal: POST /v3/payments', lite.sqliteNormalCreate, { yardstick: lite.basePost }),
      row(`baseline: bare \`pg\` single-row inserts, ${PG_CLIENTS} clients (rows/s)`, pg.inserts),
      row('PostgreSQL: POST /v3/payments', pg.create, { yardstick: pg.inserts, least: 0.5, label: '≥ 50% of bare pg inserts' }),
      row('baseline: bare Fastify GET (PostgreSQL phase)', pg.baseGet),
      row('PostgreSQL: GET /v3/payments/{id}', pg.get, {
        yardstick: pg.baseGet,
        least: PG_GET_LEAST,
        label: `≥ ${fmt.pct(PG_GET_LEAST)} of bare GET (3× the 7% before reads were grouped)`,
      }),
      row('PostgreSQL: GET /v3/payments/{id}, against PostgreSQL creates', pg.get, { yardstick: pg.create, least: 1, label: 'faster than a create (> 100%)' }),
      '',
      "Each scenario is compared with the yardstick of its own kind: a read with the bare GET, a create with the bare POST that validates the same JSON body against a schema, a create on PostgreSQL with payment-sized rows inserted straight through `pg` (in the bench process, with as many clients as the server's pool). A GET on SQLite can outrun the bare GET: its answers leave together at the end of each turn of the event loop, after one look at whether any process has committed (`turnMark`, docs/architecture.md), where the bare handler answers each request as it reads it.",
      '',
      `Peak resident memory of a Quipu server under load: **${Math.round(peak)} MB** (target < 300 MB: ${peak < 300 ? 'met' : '**missed**'}).`,
      '',
    ];
    return lines.join('\n');
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}
