// Resident memory of one `quipu serve` under a long mixed load at many connections: 35% payment
// creates, 55% reads and 10% refunds of paid payments, on SQLite and on PostgreSQL. RSS is sampled
// before, during and after the load: what a server keeps must be bounded, not grow with traffic.
import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import { type Quipu, startQuipu } from './api.js';
import { fmt, rssMb } from './load.js';
import type { MixedLoad } from './mixed-load.js';
import { createPayments, payByCredits } from './paid-payments.js';

const SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 60);
const CONNECTIONS = 50;
const MIX = { creates: 7, reads: 11, refunds: 2 };
const PAID = 1_000;
const PAID_AMOUNT = 1_000_000;
const LIMIT_MB = 300;
const OPERATOR_TOKEN = 'operator-token-for-the-memory-bench-run';
const SETTLE_SECONDS = 10;

export interface Run {
  database: string;
  arenas: string;
  rps: number;
  total: number;
  errors: number;
  beforeMb: number;
  peakMb: number;
  afterMb: number;
}

/** Paid payments of a large amount, so each takes many small refunds. */
async function paidPayments(server: Quipu): Promise<string[]> {
  const ids = await createPayments(server, PAID, (i) => ({ amount: PAID_AMOUNT, currency: 'CLP', subject: `Paid ${i}` }));
  await payByCredits(server.url, OPERATOR_TOKEN, ids, PAID_AMOUNT);
  return ids;
}

/** glibc's own limit on malloc arenas, for comparison with the recommended 2. */
const GLIBC_DEFAULT_ARENAS = String(8 * os.cpus().length);

/** One server under the mixed load; `entry` as startServerProcess takes it (the compiled `quipu` unless given). */
export async function memoryRun(kind: 'sqlite' | 'postgres', mallocArenaMax = '2', entry?: string[]): Promise<Run> {
  // An account that collects in the provider's account: its paid payments can be refunded.
  const server = await startQuipu(kind, { OPERATOR_TOKEN, MALLOC_ARENA_MAX: mallocArenaMax }, ['--refunds'], entry);
  try {
    const paymentIds = await paidPayments(server);
    const beforeMb = rssMb(server.pid) ?? 0;
    let peakMb = beforeMb;
    const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(server.pid) ?? 0)), 250);
    const options: MixedLoad = { url: server.url, apiKey: server.apiKey, paymentIds, connections: CONNECTIONS, seconds: SECONDS, mix: MIX };
    const driver = new URL('./mixed-load.ts', import.meta.url).pathname;
    let result: { rps: number; total: number; errors: number; non2xx: number };
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', driver, JSON.stringify(options)], { maxBuffer: 16 * 1024 * 1024 });
      result = JSON.parse(stdout);
    } finally {
      clearInterval(sampler);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
    return {
      database: kind === 'sqlite' ? 'SQLite' : 'PostgreSQL',
      arenas: mallocArenaMax,
      rps: result.rps,
      total: result.total,
      errors: result.errors + result.non2xx,
      beforeMb,
      peakMb,
      afterMb: rssMb(server.pid) ?? 0,
    };
  } finally {
    await server.stop();
  }
}

export async function benchMemory(): Promise<string> {
  // What grows without the recommended setting: glibc's arenas, one per thread that allocates.
  const unbounded = await memoryRun('sqlite', GLIBC_DEFAULT_ARENAS);
  const runs = [await memoryRun('sqlite')];
  if (process.env.BENCH_DATABASE_URL) runs.push(await memoryRun('postgres'));
  const mb = (n: number) => `${Math.round(n)} MB`;
  return [
    '## Memory under mixed load',
    '',
    `One \`quipu serve\` process per database (LOG_LEVEL=warn, MALLOC_ARENA_MAX=2 as docs/configuration.md recommends, defaults otherwise; the first row, on SQLite with glibc's default number of malloc arenas, shows what that setting bounds) with ${PAID.toLocaleString('en-US')} paid payments. autocannon, from a process of its own, keeps ${CONNECTIONS} connections busy for ${SECONDS} s with, of every ${MIX.creates + MIX.reads + MIX.refunds} requests on a connection, ${MIX.creates} payment creates, ${MIX.reads} reads and ${MIX.refunds} refunds of 1 (35%, 55%, 10%), the payments read and refunded drawn at random from the paid ones. Resident memory (VmRSS) of the server is read before the load, every 250 ms during it, and ${SETTLE_SECONDS} s after it. Errors count failed requests and answers other than 2xx.`,
    '',
    `| database | MALLOC_ARENA_MAX | req/s | requests | errors | RSS before | peak RSS | RSS ${SETTLE_SECONDS} s after | target (peak < ${LIMIT_MB} MB) |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...[unbounded, ...runs].map(
      (r) =>
        `| ${r.database} | ${r === unbounded ? `${r.arenas} (glibc's default: 8 per core), for comparison` : r.arenas} | ${fmt.rps(r.rps)} | ${r.total.toLocaleString('en-US')} | ${r.errors} | ${mb(r.beforeMb)} | ${mb(r.peakMb)} | ${mb(r.afterMb)} | ${r === unbounded ? '' : r.peakMb < LIMIT_MB && r.errors === 0 ? 'met' : '**missed**'} |`,
    ),
    '',
  ].join('\n');
}
