// Load on the authorization server and on bearer authentication: client_credentials issuance per
// second, and GET /v3/payments/{id} with a bearer token next to the same request with an API key,
// against one `quipu serve` process on SQLite, autocannon running in its own process. The two GET
// scenarios are interleaved (key, bearer, bearer, key) so drift on a shared machine hits both.
import { createTestDatabase } from '../test/helpers/database.js';
import { freePort, quipu, startServerProcess, waitForHttp } from '../test/helpers/process.js';
import { fmt, load, type LoadResult } from './load.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const TARGET = 0.9;

function mean(a: LoadResult, b: LoadResult): LoadResult {
  return { rps: (a.rps + b.rps) / 2, p50: (a.p50 + b.p50) / 2, p99: Math.max(a.p99, b.p99), errors: a.errors + b.errors, non2xx: a.non2xx + b.non2xx };
}

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
      headers: { authorization: `Basic ${Buffer.from(`${account.receiver_id}:${account.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    };
    const token = await fetch(tokenRequest.url, { method: 'POST', headers: tokenRequest.headers, body: tokenRequest.body }).then((r) => r.json() as Promise<{ access_token: string }>);
    const paymentUrl = `${url}/v3/payments/${created.payment_id}`;
    const bearerHeaders = { authorization: `Bearer ${token.access_token}` };
    const pid = server.child.pid!;
    const run = (headers: Record<string, string>) => load({ url: paymentUrl, headers, seconds: SECONDS, connections: CONNECTIONS, pid });

    await load({ url: paymentUrl, headers: keyHeaders, seconds: 2, connections: CONNECTIONS });
    await load({ url: paymentUrl, headers: bearerHeaders, seconds: 2, connections: CONNECTIONS });
    const issuance = await load({ ...tokenRequest, seconds: SECONDS, connections: CONNECTIONS, pid });
    const key1 = await run(keyHeaders);
    const bearer1 = await run(bearerHeaders);
    const bearer2 = await run(bearerHeaders);
    const key2 = await run(keyHeaders);
    const key = mean(key1, key2);
    const bearer = mean(bearer1, bearer2);
    const ratio = bearer.rps / key.rps;
    return [
      '## OAuth: token issuance and bearer authentication',
      '',
      `autocannon from a separate process, ${CONNECTIONS} keep-alive connections, ${SECONDS} s per scenario after a warm-up; one \`quipu serve\` process on SQLite. Tokens are ES256 JWTs; a bearer request is verified in full once, then served from the verified-token and revocation caches. The GET figures are the mean of two interleaved runs each.`,
      '',
      '| scenario | req/s | p50 | p99 | errors | note |',
      '| --- | ---: | ---: | ---: | ---: | --- |',
      row('POST /oauth2/token (client_credentials)', issuance, 'one signed JWT and one stored jti per request'),
      row('GET /v3/payments/{id} with x-api-key', key),
      row('GET /v3/payments/{id} with Bearer', bearer, `${fmt.pct(ratio)} of the API-key rate; target ≥ ${fmt.pct(TARGET)} ${ratio >= TARGET ? 'met' : '**missed**'}`),
      '',
    ].join('\n');
  } finally {
    await server.stop();
    await db.drop();
  }
}
