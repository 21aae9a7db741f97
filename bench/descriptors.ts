// The operation descriptor API under load: descriptors issued per second next to v3 payment
// creates on the same server, in paired rounds (rounds.ts), on SQLite and on PostgreSQL. A
// descriptor is one insert and one AES-256-GCM seal; a create is one insert (grouped with the
// creates that arrive together) and no cipher.
import { startQuipu } from './api.js';
import { fmt, load, type LoadOptions } from './load.js';
import { inRounds, mean, median, ratios, ROUND_SECONDS, ROUNDS, type Rounds } from './rounds.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TARGET = 0.8;
const DESCRIPTOR = JSON.stringify({
  bank: 'Bawdf',
  params: {
    subject: 'Bench order',
    amount: 1000,
    currency_code: 'CLP',
    payer_email: 'payer@example.com',
    target_account_name: 'Bench SpA',
    target_account_number: '000123456789',
    target_account_personal_identifier: '76.543.210-3',
  },
});

const run = (options: LoadOptions, seconds = ROUND_SECONDS) => load({ connections: CONNECTIONS, seconds, ...options });

interface Issued {
  database: string;
  v3: Rounds;
  descriptor: Rounds;
}

async function issued(kind: 'sqlite' | 'postgres'): Promise<Issued> {
  const server = await startQuipu(kind, { RUN_WORKER: 'false' });
  try {
    const descriptor: LoadOptions = { ...server.create, url: `${server.url}/v1/descriptor/payment`, body: DESCRIPTOR };
    await run(server.create, 2);
    await run(descriptor, 2);
    const rounds = await inRounds({ v3: () => run(server.create), descriptor: () => run(descriptor) });
    return { database: kind === 'sqlite' ? 'SQLite' : 'PostgreSQL', ...rounds };
  } finally {
    await server.stop();
  }
}

function rows(c: Issued): string[] {
  const perRound = ratios(c.descriptor, c.v3);
  const ratio = median(perRound);
  const v3 = mean(c.v3);
  const descriptor = mean(c.descriptor);
  const errors = (r: typeof v3) => String(r.errors + r.non2xx);
  return [
    `| ${c.database}: POST /v3/payments | ${fmt.rps(v3.rps)} | ${fmt.ms(v3.p50)} | ${fmt.ms(v3.p99)} | ${errors(v3)} |  |  |  |`,
    `| ${c.database}: POST /v1/descriptor/payment | ${fmt.rps(descriptor.rps)} | ${fmt.ms(descriptor.p50)} | ${fmt.ms(descriptor.p99)} | ${errors(descriptor)} | ${perRound.map(fmt.pct).join(' · ')} | **${fmt.pct(ratio)}** | ≥ ${fmt.pct(TARGET)} of v3 creates ${ratio >= TARGET ? 'met' : '**missed**'} |`,
  ];
}

export async function benchDescriptors(): Promise<string> {
  const kinds: ('sqlite' | 'postgres')[] = process.env.BENCH_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const compared: Issued[] = [];
  for (const kind of kinds) compared.push(await issued(kind));
  return [
    '## Operation descriptors',
    '',
    `autocannon from a separate process, ${CONNECTIONS} keep-alive connections, against one \`quipu serve\` process per database (LOG_LEVEL=warn, RUN_WORKER=false, defaults otherwise, so on SQLite every answer waits until its commits are on disk) with a developer account. The server takes both v3 payment creates and descriptors (seven params, sealed with AES-256-GCM under the ring's current key, one insert of the operation). After a warm-up of each, the two run in ${ROUNDS} rounds of ${ROUND_SECONDS} s, in turn and the other way round on alternate rounds; the ratio is taken within each round and the target applies to the median.`,
    '',
    '| scenario | req/s | p50 | p99 | errors | descriptor / v3 per round | ratio (median) | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...compared.flatMap(rows),
    '',
  ].join('\n');
}
