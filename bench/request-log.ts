// What the request log (docs/request-logs.md) costs the v3 API: the same server with it on (the
// developer-mode default: a file of its own, request-log.db) and off (REQUEST_LOG_RETENTION_DAYS=0:
// not even its hooks), creates and reads, on SQLite and on PostgreSQL, in paired rounds (rounds.ts)
// so that each ratio compares the two in the same minute of this shared machine.
import { row, startQuipu, type Quipu } from './api.js';
import { load, type LoadOptions } from './load.js';
import { inRounds, ROUND_SECONDS as SECONDS, ROUNDS } from './rounds.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const run = (options: LoadOptions, seconds = SECONDS) => load({ connections: CONNECTIONS, seconds, ...options });

async function phase(kind: 'sqlite' | 'postgres'): Promise<string[]> {
  const servers: Quipu[] = [];
  try {
    const off = await startQuipu(kind, { REQUEST_LOG_RETENTION_DAYS: '0' });
    servers.push(off);
    const on = await startQuipu(kind);
    servers.push(on);
    for (const options of [off.create, on.create, off.get, on.get]) await run(options, 2);
    const r = await inRounds({
      offCreate: () => run(off.create),
      onCreate: () => run(on.create),
      offGet: () => run(off.get),
      onGet: () => run(on.get),
    });
    const name = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    return [
      row(`${name}: POST /v3/payments, request log off`, r.offCreate),
      row(`${name}: POST /v3/payments, request log on`, r.onCreate, { yardstick: r.offCreate }),
      row(`${name}: GET /v3/payments/{id}, request log off`, r.offGet),
      row(`${name}: GET /v3/payments/{id}, request log on`, r.onGet, { yardstick: r.offGet }),
    ];
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

export async function benchRequestLog(): Promise<string> {
  const lite = await phase('sqlite');
  const pg = await phase('postgres');
  return [
    '## The request log on the v3 API',
    '',
    `autocannon from a separate process, ${CONNECTIONS} keep-alive connections, against two \`quipu serve\` processes on fresh databases that differ only in \`REQUEST_LOG_RETENTION_DAYS\`: \`0\` (no request log, not even its hooks) and the default \`7\` (every request a row of the log's own file \`request-log.db\`, the developer-mode default of \`REQUEST_LOG_STORE\`, written in batches every 200 ms). After a warm-up, ${ROUNDS} rounds of ${SECONDS} s each, in the table's order and in reverse on alternate rounds; the ratio compares the server with the log to the one without it in the same round (median of the rounds).`,
    '',
    '| scenario | req/s | p50 | p99 | errors | ratio per round | ratio (median) | target | peak RSS |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |',
    ...lite,
    ...pg,
    '',
  ].join('\n');
}
