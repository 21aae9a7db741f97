// Start-up of the compiled `quipu` (dist/, what `npm ci` builds): one-shot commands against a bare
// `node -e 0`, `quipu serve` from its spawn to its first healthy answer on an empty SQLite
// database, and the resident memory of `quipu serve` under the memory section's mixed load, each
// beside the same run from the TypeScript sources through tsx, as Quipu ran before it shipped
// compiled; and the CPU a command costs run as the README runs it, `node bin/quipu.js`, beside
// `npx quipu`. Times are taken in paired rounds (rounds.ts): a ratio is taken within a round, and a
// target applies to the median of the rounds.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '../test/helpers/database.js';
import { BIN, freePort, quipu, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';
import { fmt } from './load.js';
import { memoryRun, type Run } from './memory.js';
import { median, ROUNDS } from './rounds.js';

const FROM_SOURCES = ['--import', 'tsx', new URL('./quipu-sources.ts', import.meta.url).pathname];
/** One-shot commands within this many times `node -e 0`. */
const COMMAND_MOST = 3;
const SERVE_MOST_MS = 1000;
/** The compiled server's peak RSS under load at least this much below the same run through tsx. */
const RSS_SAVED_MB = 30;

/** Milliseconds from spawning `node args` to its exit, which must be a success. */
async function timed(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}`);
  return performance.now() - started;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** `quipu --version` as a person types it in the repository's folder, against the command run by npm. */
const TYPED = { node: ['node', 'bin/quipu.js', '--version'], npx: ['npx', 'quipu', '--version'] };
/** `node bin/quipu.js` at most this share of the CPU `npx quipu` costs. */
const TYPED_CPU_MOST = 0.25;

/**
 * CPU milliseconds (user and system, of the command and every process it waited for: the shell's
 * `times`) and wall milliseconds of `command`, run in the repository's folder from an environment
 * without `npm run`'s variables, as from a person's shell.
 */
async function cpuAndWall(command: string[]): Promise<{ cpu: number; wall: number }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
  const started = performance.now();
  const child = spawn('sh', ['-c', '"$@" >/dev/null 2>&1 || exit; times', 'sh', ...command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let times = '';
  child.stdout.on('data', (d) => (times += d));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const wall = performance.now() - started;
  if (code !== 0) throw new Error(`${command.join(' ')} exited with ${code}`);
  // Its second line: the children's user and system times, as 0m1.230000s (dash) or 0m1.230s (bash).
  const children = [...(times.trim().split('\n')[1] ?? '').matchAll(/(\d+)m([\d.]+)s/g)];
  if (children.length !== 2) throw new Error(`times printed ${JSON.stringify(times)}`);
  return { cpu: children.reduce((sum, [, m, s]) => sum + (Number(m) * 60 + Number(s)) * 1000, 0), wall };
}

/** A command's CPU and wall milliseconds, one of each per round. */
interface TypedTimes {
  cpu: number[];
  wall: number[];
}

async function typedTimes(): Promise<Record<keyof typeof TYPED, TypedTimes>> {
  const names = Object.keys(TYPED) as (keyof typeof TYPED)[];
  const times: Record<keyof typeof TYPED, TypedTimes> = { node: { cpu: [], wall: [] }, npx: { cpu: [], wall: [] } };
  // The first `npx quipu` in a checkout links it into npm's cache; the rounds measure the later ones.
  for (const name of names) await cpuAndWall(TYPED[name]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 ? [...names].reverse() : names) {
      const { cpu, wall } = await cpuAndWall(TYPED[name]);
      times[name].cpu.push(cpu);
      times[name].wall.push(wall);
    }
  }
  return times;
}

/** Milliseconds from spawning `quipu serve` on an empty SQLite database (defaults otherwise) to its first 200 on /healthz. */
async function serveUntilHealthy(entry: string[]): Promise<number> {
  const database = await createTestDatabase('sqlite');
  const port = await freePort();
  const started = performance.now();
  const server = startServerProcess({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, PORT: String(port) }, ['serve'], entry);
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, 5);
    return performance.now() - started;
  } finally {
    await server.stop();
    await database.drop();
  }
}

type Timing = 'node' | 'version' | 'clock' | 'serve' | 'versionSources' | 'serveSources';

async function startTimes(): Promise<Record<Timing, number[]>> {
  const database = await createTestDatabase('sqlite');
  try {
    const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir };
    const migrated = await quipu(['migrate'], env);
    if (migrated.code !== 0) throw new Error(`quipu migrate failed: ${migrated.stderr}`);
    const scenarios: [Timing, () => Promise<number>][] = [
      ['node', () => timed(['-e', '0'], env)],
      ['version', () => timed([BIN, '--version'], env)],
      ['clock', () => timed([BIN, 'clock', 'show'], env)],
      ['serve', () => serveUntilHealthy([BIN])],
      ['versionSources', () => timed([...FROM_SOURCES, '--version'], env)],
      ['serveSources', () => serveUntilHealthy(FROM_SOURCES)],
    ];
    const times = Object.fromEntries(scenarios.map(([name]) => [name, [] as number[]])) as Record<Timing, number[]>;
    // A first start reads every file from disk; the rounds measure starts of a warm installation.
    for (const [, scenario] of scenarios) await scenario();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, scenario] of round % 2 ? [...scenarios].reverse() : scenarios) times[name].push(await scenario());
    }
    return times;
  } finally {
    await database.drop();
  }
}

const times = (values: number[]) => values.map((ms) => Math.round(ms)).join(' · ');
const ratio = (n: number) => `${n.toFixed(2)}×`;

export async function benchStartup(): Promise<string> {
  const t = await startTimes();
  const row = (name: string, values: number[], goal = '') => {
    const ratios = values.map((ms, i) => ms / t.node[i]!);
    return `| ${name} | ${times(values)} | ${fmt.ms(median(values))} | ${ratios.map(ratio).join(' · ')} | **${ratio(median(ratios))}** | ${goal} |`;
  };
  const commandGoal = (values: number[]) => `≤ ${COMMAND_MOST}× ${median(values.map((ms, i) => ms / t.node[i]!)) <= COMMAND_MOST ? 'met' : '**missed**'}`;
  const serveGoal = `< ${SERVE_MOST_MS} ms ${median(t.serve) < SERVE_MOST_MS ? 'met' : '**missed**'}`;

  const typed = await typedTimes();
  const shares = typed.node.cpu.map((ms, i) => ms / typed.npx.cpu[i]!);
  const share = (n: number) => `${Math.round(n * 100)}%`;
  const typedRow = (name: string, r: TypedTimes, goal: string) =>
    `| ${name} | ${times(r.cpu)} | ${fmt.ms(median(r.cpu))} | ${fmt.ms(median(r.wall))} | ${goal} |`;

  const compiled = await memoryRun('sqlite');
  const sources = await memoryRun('sqlite', '2', FROM_SOURCES);
  const saved = sources.peakMb - compiled.peakMb;
  const mb = (n: number) => `${Math.round(n)} MB`;
  const memoryRow = (name: string, r: Run, goal: string) =>
    `| ${name} | ${fmt.rps(r.rps)} | ${r.total.toLocaleString('en-US')} | ${r.errors} | ${mb(r.beforeMb)} | ${mb(r.peakMb)} | ${goal} |`;
  return [
    '## Start-up and the compiled build',
    '',
    `\`quipu\` runs dist/, compiled from the sources by \`npm ci\` (\`npm run build\`); the rows "from the sources" run the same commands through tsx's loader (\`node --import tsx bench/quipu-sources.ts\`), as Quipu ran before. Wall time from spawning each process to its exit, or for \`quipu serve\` (defaults, a new empty SQLite database each time, so it migrates and creates the demo account) to its first 200 on /healthz, asked every 5 ms; \`quipu clock show\` reads a migrated SQLite database. After one start of each to warm the disk cache, ${ROUNDS} rounds, in the table's order and in reverse on alternate rounds; a ratio compares a start with \`node -e 0\` in the same round, and a target applies to the median.`,
    '',
    '| start | ms per round | median | ratio to `node -e 0` per round | ratio (median) | target |',
    '| --- | --- | ---: | --- | ---: | --- |',
    row('`node -e 0`', t.node),
    row('`quipu --version`', t.version, commandGoal(t.version)),
    row('`quipu clock show`', t.clock, commandGoal(t.clock)),
    row('`quipu serve` until /healthz answers 200', t.serve, serveGoal),
    row('`quipu --version`, from the sources', t.versionSources),
    row('`quipu serve` until /healthz answers 200, from the sources', t.serveSources),
    '',
    `The CPU a command costs as a person types it in the repository's folder after \`npm ci\` (the README's \`node bin/quipu.js\`, and \`npx quipu\`, which starts npm first): user and system time of the command and every process it waited for, from the shell's \`times\`, with none of \`npm run\`'s variables in the environment. After one run of each (the first \`npx quipu\` of a checkout links it into npm's cache), ${ROUNDS} rounds, in the table's order and in reverse on alternate rounds.`,
    '',
    '| command | CPU ms per round | CPU (median) | wall (median) | target |',
    '| --- | --- | ---: | ---: | --- |',
    typedRow(
      '`node bin/quipu.js --version`',
      typed.node,
      `CPU ≤ ${share(TYPED_CPU_MOST)} of \`npx quipu\`'s: ${shares.map(share).join(' · ')}, median **${share(median(shares))}**, ${median(shares) <= TYPED_CPU_MOST ? 'met' : '**missed**'}`,
    ),
    typedRow('`npx quipu --version`', typed.npx, ''),
    '',
    `Resident memory of \`quipu serve\` on SQLite under the load of "Memory under mixed load" below (the same payments, mix, connections and duration, MALLOC_ARENA_MAX=2), compiled and from the sources.`,
    '',
    '| server | req/s | requests | errors | RSS before | peak RSS | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    memoryRow(
      'compiled (dist/)',
      compiled,
      `peak ≥ ${RSS_SAVED_MB} MB below the sources': ${mb(saved)} below, ${saved >= RSS_SAVED_MB && compiled.errors === 0 ? 'met' : '**missed**'}`,
    ),
    memoryRow('from the sources through tsx', sources, ''),
    '',
  ].join('\n');
}
