// Payment creates and reads on PostgreSQL connected directly and through PgBouncer in transaction
// mode, in the same run: one database and one account, two `quipu serve` processes on it, one
// connected directly and one through a private PgBouncer (test/helpers/pgbouncer.ts) with
// `?pooler=transaction`, loaded in turn in paired rounds (rounds.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPgBouncer, throughPgBouncer } from '../test/helpers/pgbouncer.js';
import { freePort, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';
import { startQuipu } from './api.js';
import { fmt, load, type LoadOptions } from './load.js';
import { inRounds, mean, median, ratios, ROUND_SECONDS, ROUNDS, type Rounds } from './rounds.js';

const PG_ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const run = (options: LoadOptions, seconds = ROUND_SECONDS) => load({ seconds, ...options });

/** The same requests sent to the server at `port` (process `pid`). */
function to(options: LoadOptions, port: number, pid: number): LoadOptions {
  const url = new URL(options.url);
  url.port = String(port);
  return { ...options, url: url.toString(), pid };
}

function row(name: string, rounds: Rounds, direct?: Rounds): string {
  const r = mean(rounds);
  const perRound = direct ? ratios(rounds, direct) : [];
  return `| ${[name, fmt.rps(r.rps), fmt.ms(r.p50), fmt.ms(r.p99), String(r.errors + r.non2xx), perRound.map(fmt.pct).join(' · '), direct ? `**${fmt.pct(median(perRound))}**` : ''].join(' | ')} |`;
}

export async function benchPooler(): Promise<string> {
  const pgbouncer = await startPgBouncer(PG_ADMIN);
  // Both processes open the secrets the first one sealed.
  const key = randomBytes(32).toString('hex');
  const stopping: (() => Promise<void>)[] = [() => pgbouncer.stop()];
  try {
    const direct = await startQuipu('postgres', { QUIPU_ENCRYPTION_KEY: key });
    stopping.unshift(() => direct.stop());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-bench-pooler-'));
    const port = await freePort();
    const pooledServer = startServerProcess({
      DATABASE_URL: throughPgBouncer(direct.databaseUrl, pgbouncer.port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      MALLOC_ARENA_MAX: '2',
      QUIPU_ENCRYPTION_KEY: key,
      PORT: String(port),
      DEMO_ACCOUNT: 'false',
    });
    stopping.unshift(async () => {
      await pooledServer.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    const pooled = { create: to(direct.create, port, pooledServer.child.pid!), get: to(direct.get, port, pooledServer.child.pid!) };
    for (const options of [direct.create, direct.get, pooled.create, pooled.get]) await run(options, 2);
    const r = await inRounds({
      create: () => run(direct.create),
      pooledCreate: () => run(pooled.create),
      get: () => run(direct.get),
      pooledGet: () => run(pooled.get),
    });
    return [
      '## PostgreSQL through PgBouncer',
      '',
      `autocannon, 32 keep-alive connections, against two \`quipu serve\` processes (LOG_LEVEL=warn, DB_POOL_SIZE=10) on one fresh PostgreSQL database and one account: one connected directly, where hot statements are prepared by name once per connection, the other through Debian's PgBouncer in transaction mode (\`default_pool_size = 20\`, on this machine) with \`?pooler=transaction\`, where they are sent unnamed. ${ROUNDS} rounds of ${ROUND_SECONDS} s, in order and in reverse on alternate rounds; the ratio compares the pooled figure with the direct one of the same round.`,
      '',
      '| scenario | req/s | p50 | p99 | errors | through PgBouncer / direct, per round | median |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      row('PostgreSQL direct: POST /v3/payments', r.create),
      row('PostgreSQL through PgBouncer: POST /v3/payments', r.pooledCreate, r.create),
      row('PostgreSQL direct: GET /v3/payments/{id}', r.get),
      row('PostgreSQL through PgBouncer: GET /v3/payments/{id}', r.pooledGet, r.get),
      '',
    ].join('\n');
  } finally {
    for (const stop of stopping) await stop();
  }
}
