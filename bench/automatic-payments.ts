// The automatic payment API under load: charge intents created per second next to v3 payment
// creates on the same server, in paired rounds (rounds.ts), on SQLite and on PostgreSQL; then N
// charges end to end on each (charge-pipeline.ts).
import os from 'node:os';
import { startChargeServer } from './charge-server.js';
import { chargePipeline, type PipelineRun } from './charge-pipeline.js';
import { startReceiverProcess } from './delivery.js';
import { fmt, load, type LoadOptions } from './load.js';
import { inRounds, mean, median, ratios, ROUND_SECONDS, ROUNDS, type Rounds } from './rounds.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const N = Number(process.env.BENCH_CHARGES ?? 10_000);
const TARGET = 0.5;
/** PostgreSQL's end-to-end rate against SQLite's, with the same processes. */
const PIPELINE_TARGET = 0.6;
/** The end-to-end runs: the server alone, and the server with a `quipu worker` sharing its jobs and deliveries. */
const WORKERS = [0, 1];
/** Each database's end-to-end runs, in turn and the other way round on alternate rounds. */
const PIPELINE_ROUNDS = Number(process.env.BENCH_PIPELINE_ROUNDS ?? 3);
/** Nothing reads the callbacks of the creates comparison: they go to a port where nothing listens. */
const NOWHERE = 'http://127.0.0.1:9/notify';

const run = (options: LoadOptions, seconds = ROUND_SECONDS) => load({ connections: CONNECTIONS, seconds, ...options });

interface Creates {
  database: string;
  v3: Rounds;
  charge: Rounds;
}

async function creates(kind: 'sqlite' | 'postgres', adminUrl: string): Promise<Creates> {
  // The background jobs stay off: this measures the API's part, the job's is in the end-to-end run.
  const server = await startChargeServer(kind, adminUrl, NOWHERE, { RUN_WORKER: 'false' });
  try {
    await run(server.create, 2);
    await run(server.charge, 2);
    const rounds = await inRounds({ v3: () => run(server.create), charge: () => run(server.charge) });
    return { database: kind === 'sqlite' ? 'SQLite' : 'PostgreSQL', ...rounds };
  } finally {
    await server.stop();
  }
}

function createRows(c: Creates): string[] {
  const perRound = ratios(c.charge, c.v3);
  const ratio = median(perRound);
  const v3 = mean(c.v3);
  const charge = mean(c.charge);
  const errors = (r: typeof v3) => String(r.errors + r.non2xx);
  return [
    `| ${c.database}: POST /v3/payments | ${fmt.rps(v3.rps)} | ${fmt.ms(v3.p50)} | ${fmt.ms(v3.p99)} | ${errors(v3)} |  |  |  |`,
    `| ${c.database}: POST /v1/automatic-payment/charge-intent | ${fmt.rps(charge.rps)} | ${fmt.ms(charge.p50)} | ${fmt.ms(charge.p99)} | ${errors(charge)} | ${perRound.map(fmt.pct).join(' · ')} | **${fmt.pct(ratio)}** | ≥ ${fmt.pct(TARGET)} of v3 creates ${ratio >= TARGET ? 'met' : '**missed**'} |`,
  ];
}

/**
 * PostgreSQL's end-to-end rate against SQLite's with the same processes, taken within each round
 * (rounds.ts: the machine's speed drifts between runs), and whether the target is met.
 */
function pipelineVerdict(runs: readonly PipelineRun[], workers: number): string | undefined {
  const of = (database: string) => runs.filter((r) => r.database === database && r.workers === workers);
  const sqlite = of('SQLite');
  const postgres = of('PostgreSQL');
  if (sqlite.length === 0 || postgres.length !== sqlite.length) return undefined;
  const perRound = postgres.map((r, i) => r.rate / sqlite[i]!.rate);
  const ratio = median(perRound);
  const met = ratio >= PIPELINE_TARGET && [...sqlite, ...postgres].every(clean);
  return `With ${processes(workers)}, PostgreSQL runs **${fmt.pct(ratio)}** of SQLite's charges/s, the median of the rounds' ${perRound.map(fmt.pct).join(' · ')} (target ≥ ${fmt.pct(PIPELINE_TARGET)} with none lost, duplicated or submitted twice in any run: ${met ? 'met' : '**missed**'}).`;
}

/** Debits submitted twice, as the journal shows them and as DemoBank's books count them. */
const twice = (r: PipelineRun) => `${r.ordersSubmittedTwice} · ${r.ordersReceivedTwice + r.paymentsDebitedTwice}`;

const clean = (r: PipelineRun) =>
  r.delivered === r.n && r.lost === 0 && r.duplicated === 0 && r.done === r.n && r.bankDebits === r.n && r.debitRequests === r.n && twice(r) === '0 · 0';

const processes = (workers: number) => (workers === 0 ? 'one `quipu serve`' : `\`quipu serve\` + ${workers} \`quipu worker\``);

function pipelineRow(r: PipelineRun & { round: number }): string {
  const cells = [
    `${r.database}, ${processes(r.workers)}, round ${r.round + 1}`,
    `**${fmt.rps(r.rate)}**`,
    fmt.rps(r.createRate),
    `${r.submitSeconds.toFixed(1)} s`,
    `${r.settleSeconds.toFixed(1)} s`,
    r.delivered.toLocaleString('en-US'),
    String(r.lost),
    String(r.duplicated),
    r.done.toLocaleString('en-US'),
    r.bankDebits.toLocaleString('en-US'),
    r.debitRequests.toLocaleString('en-US'),
    twice(r),
    clean(r) ? 'met' : '**missed**',
  ];
  return `| ${cells.join(' | ')} |`;
}

export async function benchAutomaticPayments(): Promise<string> {
  const pgAdmin = process.env.BENCH_DATABASE_URL;
  const kinds: ['sqlite' | 'postgres', string][] = [['sqlite', '']];
  if (pgAdmin) kinds.push(['postgres', pgAdmin]);
  const compared: Creates[] = [];
  for (const [kind, admin] of kinds) compared.push(await creates(kind, admin));
  const receiver = await startReceiverProcess();
  const runs: (PipelineRun & { round: number })[] = [];
  const loadBefore = os.loadavg();
  try {
    for (const workers of WORKERS)
      for (let round = 0; round < PIPELINE_ROUNDS; round++)
        for (const [kind, admin] of round % 2 ? [...kinds].reverse() : kinds)
          runs.push({ ...(await chargePipeline(kind, admin, receiver, N, workers)), round });
  } finally {
    receiver.stop();
  }
  const loadAfter = os.loadavg();
  // SQLite's rows first, as in the creates' table.
  runs.sort((a, b) => a.workers - b.workers || b.database.localeCompare(a.database) || a.round - b.round);
  const loads = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  return [
    '## Automatic payments: charge intents',
    '',
    `autocannon from a separate process, ${CONNECTIONS} keep-alive connections, against one \`quipu serve\` process per database (LOG_LEVEL=warn, defaults otherwise, so on SQLite every answer waits until its commits are on disk) with a developer account whose subscription's mandate is signed at DemoBank and ENABLED. The server takes both v3 payment creates and charge intents with the same amount, subject and URLs; a charge intent also looks up its subscription and writes its debit order with its payment, both rows in one commit (shared, like the creates', with the charges that arrive in the same turn of the event loop: \`store/charges.ts\`). The background jobs are off in this comparison (RUN_WORKER=false), so the figure is the API's alone: the job that submits the debits is measured in the end-to-end run below. After a warm-up of each, the two run in ${ROUNDS} rounds of ${ROUND_SECONDS} s, in turn and the other way round on alternate rounds; the ratio is taken within each round and the target applies to the median.`,
    '',
    '| scenario | req/s | p50 | p99 | errors | charge / v3 per round | ratio (median) | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...compared.flatMap(createRows),
    '',
    `### ${N.toLocaleString('en-US')} charges end to end`,
    '',
    `One \`quipu serve\` process per database (defaults but JOBS_POLL_MS=50, so it finds the \`collect-debits\` job due within 50 ms of its 5 s of developer clock) with an ENABLED subscription; in the rows with a \`quipu worker\`, that process runs beside the server on the same database with the same settings, and whichever of the two takes a job runs it, while both deliver notifications. autocannon sends ${N.toLocaleString('en-US')} charge intents (${CONNECTIONS} connections); the job submits their debits to DemoBank in batches of up to 200 (each batch claimed and made durable before DemoBank hears of it, four batches at once); once every debit is submitted the bench moves the developer clock (POST /sandbox/clock) past the next bank business day; the job then asks DemoBank about each debit, which settles it, and the answer reconciles the payment and writes its 3.0 notification; the server's worker delivers those to a receiver in its own process, which counts them per payment. **charges/s** is N over the whole run, from autocannon's start to the last notification recorded delivered; the next columns are the creates alone, the wait from the last create until the job had submitted every debit (the job's 5 s cadence included), and the time from the clock's move to the last delivery. Lost and duplicated are counted by the receiver; done is the payments that read done at the end; DemoBank's debits are the rows of its books; debit requests are the \`debit\` requests of its journal, read as they are written from before the first charge to after the last delivery; submitted twice counts, first, the orders the journal shows sent more than once and, second, the orders DemoBank's books count as received more than once plus the payments with more than one debit order there. The runs go in ${PIPELINE_ROUNDS} rounds per set of processes, SQLite and PostgreSQL in turn and the other way round on alternate rounds; PostgreSQL's rate is compared with SQLite's within each round, and the target applies to the median.`,
    '',
    '| database | charges/s (end to end) | creates/s | last create → all submitted | clock moved → last delivery | delivered | lost | duplicated | done | DemoBank debits | debit requests | submitted twice (journal · books) | none lost, duplicated or submitted twice |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...runs.map(pipelineRow),
    '',
    ...WORKERS.flatMap((workers) => pipelineVerdict(runs, workers) ?? []).flatMap((line) => [line, '']),
    `Load average of the machine (1 / 5 / 15 min), shared with other work: ${loads(loadBefore)} before these runs, ${loads(loadAfter)} after.`,
    '',
  ].join('\n');
}
