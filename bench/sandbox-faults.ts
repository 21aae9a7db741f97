// Faults on demand cost an account without faults nothing (docs/sandbox-faults.md): v3 creates and
// GETs of such an account on `quipu serve` as built (the fault hooks on every API route, and another
// account of the server with every fault set) against the same build without the fault hooks (a copy
// of dist/ whose server leaves them out: the API as it was before faults), both with the sandbox
// on, on SQLite, next to the bare Fastify baseline, in paired rounds (rounds.ts). Besides requests
// a second, the CPU time each server spends per request: what the hooks would add to, and far less
// moved than throughput by the other work of a shared machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { row, startBaseline, startQuipu } from './api.js';
import { cpuMs, fmt, load, type LoadOptions, type LoadResult } from './load.js';
import { inRounds, median, ROUND_SECONDS as SECONDS, ROUNDS, type Rounds } from './rounds.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** The most the fault hooks may cost per request: a twentieth, about this machine's noise between two identical servers. */
const MOST = 1.05;

type Measured = LoadResult & { cpuUs: number };

async function run(options: LoadOptions, seconds = SECONDS): Promise<Measured> {
  const before = options.pid === undefined ? 0 : cpuMs(options.pid);
  const result = await load({ connections: CONNECTIONS, seconds, ...options });
  const used = options.pid === undefined ? Number.NaN : cpuMs(options.pid) - before;
  return { ...result, cpuUs: (1000 * used) / (result.rps * seconds) };
}

const ROOT = new URL('..', import.meta.url).pathname;
/** Where the built server installs the fault hooks (src/http/server.ts, as esbuild writes it). */
const FAULT_HOOKS = 'app.addHook("onRoute", apiFaultsOn);';

/** A copy of the build (dist/, bin/) whose server installs no fault hook, and the entry that runs it. */
function buildWithoutFaultHooks(): { entry: string[]; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-before-faults-'));
  for (const part of ['dist', 'bin', 'package.json']) fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const files = (fs.readdirSync(path.join(dir, 'dist'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(dir, 'dist', f));
  // Chunks of earlier builds may linger beside the one the server loads: each loses the line.
  const holders = files.filter((file) => fs.readFileSync(file, 'utf8').includes(FAULT_HOOKS));
  if (holders.length === 0) throw new Error(`the build no longer installs the fault hooks as ${FAULT_HOOKS}`);
  for (const file of holders) fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(FAULT_HOOKS, ''));
  return { entry: [path.join(dir, 'bin', 'quipu.js')], remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Another account of the server, with every fault set: its setting must not weigh on the accounts without one. */
async function faultyNeighbour(url: string): Promise<void> {
  const created = await fetch(`${url}/sandbox/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const { api_key } = (await created.json()) as { api_key: string };
  const setting = {
    seed: 1,
    api: { status: 429, count: 1000 },
    drop_connection: { count: 1000 },
    bank: { transfers: 'uncertain' },
    notifications: { duplicate: 1, out_of_order: true },
  };
  const set = await fetch(`${url}/sandbox/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-api-key': api_key },
    body: JSON.stringify(setting),
  });
  if (set.status !== 200) throw new Error(`faults not set: ${set.status} ${await set.text()}`);
}

/** A row of the CPU table: µs per request, and with the fault hooks against without, each round. */
function cpuRow(name: string, before: Rounds, after: Rounds): string {
  const us = (rounds: Rounds) => (rounds as Measured[]).map((r) => r.cpuUs);
  const perRound = us(after).map((value, i) => value / us(before)[i]!);
  const ratio = median(perRound);
  return `| ${name} | ${median(us(before)).toFixed(1)} µs | ${median(us(after)).toFixed(1)} µs | ${perRound.map(fmt.pct).join(' · ')} | **${fmt.pct(ratio)}** | ≤ ${fmt.pct(MOST)} ${ratio <= MOST ? 'met' : '**missed**'} |`;
}

export async function benchSandboxFaults(): Promise<string> {
  const started = new Date();
  const loadAtStart = os.loadavg()[0]!;
  const previous = buildWithoutFaultHooks();
  const base = await startBaseline();
  const before = await startQuipu('sqlite', {}, [], previous.entry);
  const after = await startQuipu('sqlite');
  try {
    await faultyNeighbour(after.url);
    for (const options of [base.get, base.post, before.get, after.get, before.create, after.create]) await run(options, 2);
    const r = await inRounds({
      baseGet: () => run(base.get),
      beforeGet: () => run(before.get),
      afterGet: () => run(after.get),
      basePost: () => run(base.post),
      beforeCreate: () => run(before.create),
      afterCreate: () => run(after.create),
    });
    const loadAtEnd = os.loadavg()[0]!;
    return [
      '## Faults on demand: an account without faults',
      '',
      `Measured ${started.toISOString()} (\`npm run bench sandbox-faults\`); the machine's load average was ${loadAtStart.toFixed(1)} at the start and ${loadAtEnd.toFixed(1)} at the end, on ${os.cpus().length} cores. autocannon, ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${SECONDS} s, on SQLite, the sandbox on (the default): v3 GETs and creates of a developer-mode account without faults on \`quipu serve\` as built, whose every v3, v2 and v1 route carries the fault hooks (\`src/http/api-faults.ts\`) and where another account has every fault set, and on the same build without the hooks (a copy of dist/ whose server does not install them: the API as it was before faults).`,
      '',
      '| scenario | req/s | p50 | p99 | errors | ratio per round | ratio (median) | target | peak RSS |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
      row('baseline: bare Fastify GET', r.baseGet),
      row('without fault hooks: GET /v3/payments/{id}', r.beforeGet, { yardstick: r.baseGet }),
      row('with fault hooks, no faults: GET /v3/payments/{id}', r.afterGet, { yardstick: r.baseGet }),
      row('with against without: GET', r.afterGet, { yardstick: r.beforeGet }),
      row('baseline: bare Fastify POST (schema-validated)', r.basePost),
      row('without fault hooks: POST /v3/payments', r.beforeCreate, { yardstick: r.basePost }),
      row('with fault hooks, no faults: POST /v3/payments', r.afterCreate, { yardstick: r.basePost }),
      row('with against without: POST', r.afterCreate, { yardstick: r.beforeCreate }),
      '',
      "Requests a second move from round to round with the other work of the machine; the server's own CPU time per request (user and system, from /proc, over each round) moves less, and is what the hooks would add to. The target: with the hooks, at most a twentieth more per request than without, in the median of the rounds.",
      '',
      '| server CPU per request | without fault hooks (median) | with fault hooks, no faults (median) | with against without, per round | with against without (median) | target |',
      '| --- | ---: | ---: | ---: | ---: | --- |',
      cpuRow('GET /v3/payments/{id}', r.beforeGet, r.afterGet),
      cpuRow('POST /v3/payments', r.beforeCreate, r.afterCreate),
      '',
    ].join('\n');
  } finally {
    await after.stop();
    await before.stop();
    await base.stop();
    previous.remove();
  }
}
