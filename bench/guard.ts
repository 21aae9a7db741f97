// `npm run bench:guard`: fails when the working tree (or --current) is slower than the baseline
// (guard-options.ts: bench/guard-baseline, or --against). Each build's `quipu serve` runs as
// several processes (--processes), each on a fresh database of its own (SQLite, or PostgreSQL with
// --postgres); all stay up all along and are measured one at a time, in rounds (rounds.ts: baseline
// then current, then current then baseline, and so on), round i on the i-th pair of processes.
// What is compared is work done per second of CPU time of the server's event loop, not per second
// of the clock: on this shared 2-core machine, two measures a second apart answered
// up to five times as many requests as each other, for the share of the cores each got. A round's
// ratio is current ÷ baseline of one measure, and a measure fails when the median of its rounds'
// ratios is below the threshold. Exit 0: every measure reached it; 1: one did not, or had errors;
// 2: nothing was measured.
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { startReceiverProcess } from './delivery.js';
import { buildOf, git } from './guard-builds.js';
import { baselineRef, guardOptions, type Measure, writtenRef } from './guard-options.js';
import { type GuardServer, type Round, startGuardServer } from './guard-server.js';
import { fmt } from './load.js';
import { inRounds, median } from './rounds.js';

const BASELINE_FILE = new URL('./guard-baseline', import.meta.url).pathname;
/**
 * A first, untimed, run of each measure on each server: until the JIT has compiled its code, a
 * server's CPU per request falls round after round (to a third within a minute on a loaded machine).
 */
const WARM_UP = { seconds: 3, payments: 500 };

const LABELS: Record<Measure, string> = {
  get: 'GET /v3/payments/{id}',
  create: 'POST /v3/payments',
  delivery: 'payments paid by credits → notified',
  charge: 'charge intents → settled and notified',
};

const loads = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

function report(measure: Measure, against: Round[], current: Round[], threshold: number): { line: string; met: boolean } {
  // A round where neither server answered anything (0 ÷ 0) tells nothing.
  const ratios = current.map((r, i) => r.perCpuSecond / against[i]!.perCpuSecond).filter((ratio) => !Number.isNaN(ratio));
  const ratio = median(ratios);
  const errors = [...against, ...current].reduce((sum, r) => sum + r.errors, 0);
  const met = ratio >= threshold && errors === 0;
  const verdict = errors > 0 ? `**${errors} errors**` : ratio >= threshold ? 'met' : '**below**';
  const perCpu = (rounds: Round[]) => rounds.map((r) => fmt.rps(r.perCpuSecond)).join(' · ');
  const rates = `${fmt.rps(median(against.map((r) => r.rate)))} · ${fmt.rps(median(current.map((r) => r.rate)))}`;
  const cells = [
    LABELS[measure],
    rates,
    perCpu(against),
    perCpu(current),
    ratios.map(fmt.pct).join(' · '),
    `**${fmt.pct(ratio)}**`,
    `≥ ${fmt.pct(threshold)} ${verdict}`,
  ];
  return { line: `| ${cells.join(' | ')} |`, met };
}

async function guard(): Promise<boolean> {
  const started = performance.now();
  const options = guardOptions(process.argv.slice(2), process.env);
  const { form } = options;
  const lastChange = git('log', '-1', '--format=%H', '--', BASELINE_FILE);
  const against = buildOf(baselineRef(options.against, lastChange, writtenRef(fs.readFileSync(BASELINE_FILE, 'utf8'))));
  const current = buildOf(options.current);
  const kind = options.postgres ? 'postgres' : 'sqlite';
  const receiver = await startReceiverProcess();
  const servers: GuardServer[] = [];
  try {
    // Started side by side, as nothing is measured yet; the ones that start are stopped below either way.
    const builds = Array.from({ length: form.processes }, () => [against, current]).flat();
    const starts = await Promise.allSettled(builds.map((build) => startGuardServer(kind, build.entry, receiver, options.production)));
    for (const start of starts) if (start.status === 'fulfilled') servers.push(start.value);
    for (const start of starts) if (start.status === 'rejected') throw start.reason;
    const [bases, nows] = [servers.filter((_, i) => i % 2 === 0), servers.filter((_, i) => i % 2 === 1)];
    const loadBefore = loads();
    for (const measure of form.measures) for (const server of servers) await server.measure(measure, WARM_UP.seconds, WARM_UP.payments);
    /** Each scenario runs once a round: its n-th run is round n's, on the round's pair of servers. */
    const rotating = (of: GuardServer[], measure: Measure) => {
      let round = 0;
      return () => of[round++ % of.length]!.measure(measure, form.seconds, form.payments);
    };
    const scenarios = Object.fromEntries(
      form.measures.flatMap((measure) => [
        [`${measure}:against`, rotating(bases, measure)],
        [`${measure}:current`, rotating(nows, measure)],
      ]),
    );
    const rounds = await inRounds(scenarios, form.rounds);
    const reports = form.measures.map((m) => report(m, rounds[`${m}:against`]!, rounds[`${m}:current`]!, options.threshold));
    console.log(
      [
        `bench:guard ${new Date().toISOString()}: ${current.name} against ${against.name}, ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${form.rounds} rounds over ${form.processes} servers of each build`,
        `(${form.seconds} s a GET or create measure, ${form.payments.toLocaleString('en-US')} payments or charges a delivery or charge measure); load average ${loadBefore} before the rounds, ${loads()} after; ${Math.round((performance.now() - started) / 1000)} s in all, builds included.`,
        '',
        "| measure | per second, baseline · current (medians) | per CPU second of the server's event loop, baseline per round | the same, current per round | current ÷ baseline per round | median | threshold |",
        '| --- | --- | --- | --- | --- | ---: | --- |',
        ...reports.map((r) => r.line),
        '',
      ].join('\n'),
    );
    return reports.every((r) => r.met);
  } finally {
    for (const server of servers) await server.stop();
    receiver.stop();
  }
}

try {
  process.exitCode = (await guard()) ? 0 : 1;
} catch (error) {
  console.error(`bench:guard: nothing measured: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
  process.exitCode = 2;
}
