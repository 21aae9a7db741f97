// Drives a server with autocannon from a separate process (so load generation does not share the
// server's event loop) and samples the server's resident memory meanwhile.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const AUTOCANNON = new URL('../node_modules/autocannon/autocannon.js', import.meta.url).pathname;

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  /** Send this many requests in all instead of running for `seconds`. */
  amount?: number;
  /** A process whose resident memory is sampled during the run. */
  pid?: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  maxRssMb?: number;
  /** When autocannon started and when its last answer came (epoch ms, this machine's clock). */
  startedAt?: number;
  finishedAt?: number;
}

export function rssMb(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const length = options.amount === undefined ? ['-d', String(options.seconds ?? 8)] : ['-a', String(options.amount)];
  const args = [AUTOCANNON, '-j', '-c', String(options.connections ?? 32), ...length, '-m', options.method ?? 'GET'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (options.body) args.push('-b', options.body);
  args.push(options.url);
  let maxRss = 0;
  const sampler = options.pid ? setInterval(() => (maxRss = Math.max(maxRss, rssMb(options.pid!) ?? 0)), 250) : undefined;
  try {
    const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
    const r = JSON.parse(stdout);
    return {
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors: r.errors + r.timeouts,
      non2xx: r.non2xx,
      maxRssMb: sampler ? maxRss : undefined,
      startedAt: Date.parse(r.start),
      finishedAt: Date.parse(r.finish),
    };
  } finally {
    if (sampler) clearInterval(sampler);
  }
}

export const fmt = {
  rps: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => `${n.toFixed(1)} ms`,
  // One decimal: a figure at a target's edge must not read as the target itself.
  pct: (n: number) => `${(n * 100).toFixed(1)}%`,
};
