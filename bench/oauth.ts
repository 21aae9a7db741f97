// Load on the authorization server and on bearer authentication: client_credentials issuance per
// second, and GET /v3/payments/{id} with a bearer token next to the same request with an API key,
// against one `quipu serve` process on SQLite, autocannon running in its own process. The two GET
// scenarios run in paired rounds (rounds.ts), so drift on a shared machine hits both.
import { createTestDatabase } from '../test/helpers/database.js';
import { freePort, quipu, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';
import { fmt, load, type LoadResult } from './load.js';
import { inRounds, mean, median, ratios, ROUND_SECONDS, ROUNDS } from './rounds.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const TARGET = 0.9;

function row(name: string, r: LoadResult, extra = ''): string {
  return `| ${name} | ${fmt.rps(r.rps)} | ${fmt.ms(r.p50)} | ${fmt.ms(r.p99)} | ${r.errors + r.non2xx} | ${extra} |`;
}

export async function benchOAuth(): Promise<string> {
  const db = await createTestDatabase('sqlite');
  const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, LOG_LEVEL: 'warn' };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = startServerProcess({ ...env, PORT: String(port), PUBLIC_BASE_URL: url, DEMO_ACCOUNT: 'false', RUN_WORKER: 'false' });
  try {
    await waitForHttp(`${url}/readyz`);
    const account = JSON.parse((await quipu(['merchants', 'create', '--name', 'Bench', '--json'], env)).stdout);
    const keyHeaders = { 'x-api-key': account.api_key };
    const created = await fetch(`${url}/v3/payments`, {
      method: 'POST',
      headers: { ...keyHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1000, currency: 'CLP', subject: 'Bench order' }),
    }).then((r) => r.json() as Promise<{ payment_id: string }>);
    const tokenRequest = {
      url: `${url}/oauth2/token`,
      method: 'POST' as const,
      headers: {
        authorization: `Basic ${Buffer.from(`${account.receiver_id}:${account.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    };
    const token = await fetch(tokenRequest.url, { method: 'POST', headers: tokenRequest.headers, body: tokenRequest.body }).then(
      (r) => r.json() as Promise<{ access_token: string }>,
    );
    const paymentUrl = `${url}/v3/payments/${created.payment_id}`;
    const bearerHeaders = { authorization: `Bearer ${token.access_token}` };
    const pid = server.child.pid!;
    const run = (headers: Record<string, string>) => load({ url: paymentUrl, headers, seconds: ROUND_SECONDS, connections: CONNECTIONS, pid });

    await load({ url: paymentUrl, headers: keyHeaders, seconds: 2, connections: CONNECTIONS });
    await load({ url: paymentUrl, headers: bearerHeaders, seconds: 2, connections: CONNECTIONS });
    const issuance = await load({ ...tokenRequest, seconds: SECONDS, connections: CONNECTIONS, pid });
    const gets = await inRounds({ key: () => run(keyHeaders), bearer: () => run(bearerHeaders) });
    const perRound = ratios(gets.bearer, gets.key);
    const ratio = median(perRound);
    return [
      '## OAuth: token issuance and bearer authentication',
      '',
      `autocannon from a separate process, ${CONNECTIONS} keep-alive connections, after a warm-up; one \`quipu serve\` process on SQLite. Issuance runs for ${SECONDS} s. Tokens are ES256 JWTs; a bearer request is verified in full once, then served from the verified-token and revocation caches. The two GETs run in ${ROUNDS} rounds of ${ROUND_SECONDS} s (API key then bearer, then the other way round); their figures are means over the rounds, and the ratio is the median of the rounds' (${perRound.map(fmt.pct).join(' · ')}).`,
      '',
      '| scenario | req/s | p50 | p99 | errors | note |',
      '| --- | ---: | ---: | ---: | ---: | --- |',
      row('POST /oauth2/token (client_credentials)', issuance, 'one signed JWT and one stored jti per request'),
      row('GET /v3/payments/{id} with x-api-key', mean(gets.key)),
      row(
        'GET /v3/payments/{id} with Bearer',
        mean(gets.bearer),
        `${fmt.pct(ratio)} of the API-key rate; target ≥ ${fmt.pct(TARGET)} ${ratio >= TARGET ? 'met' : '**missed**'}`,
      ),
      '',
    ].join('\n');
  } finally {
    await server.stop();
    await db.drop();
  }
}
