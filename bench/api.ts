// Load on the v3 API: POST /v3/payments and GET /v3/payments/{id} against a real server process on
// SQLite and on PostgreSQL, next to a bare Fastify baseline and a bare `pg` insert loop, all in the
// same run on the same machine.
import { createTestDatabase } from '../test/helpers/database.js';
import { freePort, quipu, startServerProcess, waitForHttp } from '../test/helpers/process.js';
import { fmt, load, type LoadResult } from './load.js';
import { pgInsertRate } from './pg-insert.js';
import { spawn } from 'node:child_process';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const PG_ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PAYMENT = JSON.stringify({ amount: 1000, currency: 'CLP', subject: 'Bench order', transaction_id: 'INV-1', return_url: 'https://shop.example/return', notify_url: 'https://shop.example/notify' });

async function baseline(): Promise<{ get: LoadResult; post: LoadResult }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./baseline-server.ts', import.meta.url).pathname], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.on('data', (d) => String(d).includes('listening') && resolve()));
  try {
    const url = `http://127.0.0.1:${port}`;
    await load({ url: `${url}/hello`, seconds: 2, connections: CONNECTIONS });
    await load({ url: `${url}/echo`, method: 'POST', headers: { 'content-type': 'application/json' }, body: PAYMENT, seconds: 2, connections: CONNECTIONS });
    const get = await load({ url: `${url}/hello`, seconds: SECONDS, connections: CONNECTIONS });
    const post = await load({ url: `${url}/echo`, method: 'POST', headers: { 'content-type': 'application/json' }, body: PAYMENT, seconds: SECONDS, connections: CONNECTIONS });
    return { get, post };
  } finally {
    child.kill();
  }
}

interface QuipuRun {
  create: LoadResult;
  get: LoadResult;
  pgInsert?: number;
}

async function quipuOn(kind: 'sqlite' | 'postgres', settings: Record<string, string> = {}): Promise<QuipuRun> {
  const db = await createTestDatabase(kind, PG_ADMIN);
  const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, LOG_LEVEL: 'warn', ...settings };
  const port = await freePort();
  const server = startServerProcess({ ...env, PORT: String(port), DEMO_ACCOUNT: 'false' });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    const account = JSON.parse((await quipu(['merchants', 'create', '--name', 'Bench', '--json'], env)).stdout);
    const url = `http://127.0.0.1:${port}`;
    const headers = { 'content-type': 'application/json', 'x-api-key': account.api_key };
    const created = (await fetch(`${url}/v3/payments`, { method: "POST", headers, body: PAYMENT }).then((r) => r.json())) as { payment_id: string };
    const pid = server.child.pid!;
    await load({ url: `${url}/v3/payments/${created.payment_id}`, headers, seconds: 2, connections: CONNECTIONS });
    await load({ url: `${url}/v3/payments`, method: 'POST', headers, body: PAYMENT, seconds: 2, connections: CONNECTIONS });
    const create = await load({ url: `${url}/v3/payments`, method: 'POST', headers, body: PAYMENT, seconds: SECONDS, connections: CONNECTIONS, pid });
    const get = await load({ url: `${url}/v3/payments/${created.payment_id}`, headers: { 'x-api-key': account.api_key }, seconds: SECONDS, connections: CONNECTIONS, pid });
    const pgInsert = kind === 'postgres' ? await pgInsertRate(db.url, 10, SECONDS) : undefined;
    return { create, get, pgInsert };
  } finally {
    await server.stop();
    await db.drop();
  }
}

function row(name: string, r: LoadResult, ratio: number | undefined, target: string, pass: boolean | undefined): string {
  const verdict = pass === undefined ? '' : pass ? 'met' : '**missed**';
  return `| ${name} | ${fmt.rps(r.rps)} | ${fmt.ms(r.p50)} | ${fmt.ms(r.p99)} | ${r.errors + r.non2xx} | ${ratio === undefined ? '' : fmt.pct(ratio)} | ${target} ${verdict} | ${r.maxRssMb ? `${Math.round(r.maxRssMb)} MB` : ''} |`;
}

/** The mean of two runs of one scenario. */
function mean(a: LoadResult, b: LoadResult): LoadResult {
  return { rps: (a.rps + b.rps) / 2, p50: (a.p50 + b.p50) / 2, p99: (a.p99 + b.p99) / 2, errors: a.errors + b.errors, non2xx: a.non2xx + b.non2xx };
}

export async function benchApi(): Promise<string> {
  // The baseline runs before and after Quipu's scenarios: the machine's load drifts during a run,
  // and their mean is what Quipu's figures are compared with.
  const before = await baseline();
  const sqlite = await quipuOn('sqlite');
  // The price of durability: the same creates when SQLite may lose its last commits to a power cut.
  const sqliteNormal = await quipuOn('sqlite', { SQLITE_SYNCHRONOUS: 'normal' });
  const postgres = await quipuOn('postgres');
  const after = await baseline();
  const base = { get: mean(before.get, after.get), post: mean(before.post, after.post) };
  const rss = Math.max(sqlite.create.maxRssMb ?? 0, sqlite.get.maxRssMb ?? 0, postgres.create.maxRssMb ?? 0, postgres.get.maxRssMb ?? 0);
  const lines = [
    '## v3 API under load',
    '',
    `autocannon from a separate process, ${CONNECTIONS} keep-alive connections, ${SECONDS} s per scenario after a warm-up; the server is \`quipu serve\` (LOG_LEVEL=warn) on a fresh database, with its defaults: on SQLite every answer waits until its commits are on disk (\`SQLITE_SYNCHRONOUS=full\`); the row with \`normal\` shows what that durability costs creates. The baselines ran before and after Quipu's scenarios (GET ${fmt.rps(before.get.rps)} then ${fmt.rps(after.get.rps)} req/s, POST ${fmt.rps(before.post.rps)} then ${fmt.rps(after.post.rps)} req/s); the table shows their mean.`,
    '',
    '| scenario | req/s | p50 | p99 | errors | ratio | target | peak RSS |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
    row('baseline: bare Fastify GET', base.get, undefined, '', undefined),
    row('baseline: bare Fastify POST (schema-validated)', base.post, undefined, '', undefined),
    row('SQLite: POST /v3/payments', sqlite.create, sqlite.create.rps / base.post.rps, '≥ 25% of bare POST', sqlite.create.rps / base.post.rps >= 0.25),
    row('SQLite, SQLITE_SYNCHRONOUS=normal: POST /v3/payments', sqliteNormal.create, sqliteNormal.create.rps / base.post.rps, '', undefined),
    row('SQLite: GET /v3/payments/{id}', sqlite.get, sqlite.get.rps / base.get.rps, '≥ 50% of bare GET', sqlite.get.rps / base.get.rps >= 0.5),
    row('PostgreSQL: POST /v3/payments', postgres.create, postgres.create.rps / postgres.pgInsert!, '≥ 50% of bare pg inserts', postgres.create.rps / postgres.pgInsert! >= 0.5),
    row('PostgreSQL: GET /v3/payments/{id}', postgres.get, postgres.get.rps / base.get.rps, '', undefined),
    '',
    `Bare \`pg\` single-row inserts (10 concurrent clients, same machine, same run): **${fmt.rps(postgres.pgInsert!)} rows/s**. Each SQLite scenario is compared with the bare handler of its own kind: a create with the bare POST that validates the same JSON body against a schema, a read with the bare GET (the create is also ${fmt.pct(sqlite.create.rps / base.get.rps)} of the bare GET).`,
    '',
    `Peak resident memory of the server under load: **${Math.round(rss)} MB** (target < 300 MB: ${rss < 300 ? 'met' : '**missed**'}).`,
    '',
  ];
  return lines.join('\n');
}
