// Drives a server with autocannon from a separate process (so load generation does not share the
// server's event loop) and samples the server's resident memory meanwhile; or, where measures must
// follow one another without a process started between them, from this process (loadHere).
import autocannon, { type Result } from 'autocannon';
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
  /** Requests answered in all (a yardstick that counts rows has none). */
  requests?: number;
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

/** Milliseconds a thread of a process has run on a CPU: its schedstat counts nanoseconds, where its stat counts ticks of 10 ms. */
function ranMs(pid: number, thread: string): number {
  return Number(fs.readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** CPU milliseconds the process has used, all its threads (Node's live as long as the process, so no time leaves the sum). */
export function cpuMs(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/task`).reduce((sum, thread) => sum + ranMs(pid, thread), 0);
}

/** CPU milliseconds of the process's main thread alone: a Node server's event loop, the one thread its answers wait for. */
export function eventLoopCpuMs(pid: number): number {
  return ranMs(pid, String(pid));
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
    return { ...resultOf(JSON.parse(stdout)), maxRssMb: sampler ? maxRss : undefined };
  } finally {
    if (sampler) clearInterval(sampler);
  }
}

/**
 * `options.seconds` of load from autocannon in this process, which must have nothing else to do
 * meanwhile: no process to start (on a loaded machine, seconds), so two measures run back to back.
 */
export async function loadHere(options: LoadOptions): Promise<LoadResult> {
  const { url, method = 'GET', headers, body } = options;
  return resultOf(await autocannon({ url, connections: options.connections ?? 32, duration: options.seconds ?? 8, requests: [{ method, headers, body }] }));
}

/** autocannon's result, as its command line prints it in JSON and its programmatic interface answers it. */
function resultOf(r: Result): LoadResult {
  return {
    rps: r.requests.average,
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    startedAt: new Date(r.start).getTime(),
    finishedAt: new Date(r.finish).getTime(),
  };
}

export const fmt = {
  rps: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => `${n.toFixed(1)} ms`,
  // One decimal: a figure at a target's edge must not read as the target itself.
  pct: (n: number) => `${(n * 100).toFixed(1)}%`,
};
