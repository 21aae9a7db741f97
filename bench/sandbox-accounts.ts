// Sandbox accounts on demand in one `quipu serve` on SQLite: 1,000 accounts created one after
// another over HTTP (each POST /sandbox/accounts timed from the request to its answer), then every
// account made live: a payment created and read, and its own clock moved, so the process caches
// 1,000 accounts and follows 1,000 clocks. The server's resident memory is sampled every 100 ms
// from its start; the targets: creation median under 5 ms, p99 under 25 ms, peak RSS under
// 300 MB with 1,000 live accounts.
import { createTestDatabase } from '../test/helpers/database.js';
import { freePort, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';
import { fmt, rssMb } from './load.js';

const ACCOUNTS = Number(process.env.BENCH_SANDBOX_ACCOUNTS ?? 1_000);
const TARGETS = { medianMs: 5, p99Ms: 25, rssMb: 300 };

async function send(url: string, method: string, path: string, body?: unknown, apiKey?: string): Promise<{ ms: number; body: any }> {
  const started = performance.now();
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return { ms, body: answer };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function benchSandboxAccounts(): Promise<string> {
  const database = await createTestDatabase('sqlite', '', { migrated: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = startServerProcess({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', PORT: String(port) });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.child.pid!) ?? 0)), 100);
  try {
    await waitForHttp(`${url}/readyz`);
    const startRss = rssMb(server.child.pid!) ?? 0;
    const created: number[] = [];
    const accounts: { api_key: string }[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const answer = await send(url, 'POST', '/sandbox/accounts', { name: `Suite ${i}` });
      created.push(answer.ms);
      accounts.push(answer.body);
    }
    for (const account of accounts) {
      const payment = await send(url, 'POST', '/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Live' }, account.api_key);
      await send(url, 'GET', `/v3/payments/${payment.body.payment_id}`, undefined, account.api_key);
      await send(url, 'POST', '/sandbox/clock', { advance: '2d' }, account.api_key);
    }
    const liveRss = rssMb(server.child.pid!) ?? 0;
    const sorted = [...created].sort((a, b) => a - b);
    const median = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);
    const met = (value: number, target: number) => (value < target ? 'met' : 'missed');
    return [
      '## Sandbox accounts on demand',
      '',
      `One \`quipu serve\` on SQLite (sandbox on, no demo account). ${ACCOUNTS.toLocaleString('en-US')} accounts created one after another with POST /sandbox/accounts (each timed from the request to its answer), then each made live: a payment created and read, and its own clock moved two days. Resident memory of the server sampled every 100 ms from its start.`,
      '',
      '| measure | value | target |',
      '| --- | ---: | --- |',
      `| creating an account, median | ${fmt.ms(median)} | < ${TARGETS.medianMs} ms: ${met(median, TARGETS.medianMs)} |`,
      `| creating an account, p99 | ${fmt.ms(p99)} | < ${TARGETS.p99Ms} ms: ${met(p99, TARGETS.p99Ms)} |`,
      `| RSS when ready | ${startRss.toFixed(0)} MB | |`,
      `| RSS with ${ACCOUNTS.toLocaleString('en-US')} live accounts | ${liveRss.toFixed(0)} MB | |`,
      `| peak RSS | ${peak.toFixed(0)} MB | < ${TARGETS.rssMb} MB: ${met(peak, TARGETS.rssMb)} |`,
      '',
    ].join('\n');
  } finally {
    clearInterval(sampler);
    await server.stop();
    await database.drop();
  }
}
