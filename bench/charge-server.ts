// A `quipu serve` process on a fresh database with a developer account whose subscription is
// ENABLED, ready to take charge intents (and v3 payment creates, the yardstick). The subscription
// is created over the API and its mandate signed at DemoBank through the signing use cases, in this
// process on the same database, as the payer's pages would sign it.
import { startMandateSigning, signInForMandate, signMandate } from '../src/app/mandate-signing.js';
import { DEMO_COORDINATES } from '../src/bank/demo-bank-scenarios.js';
import { loadConfig } from '../src/config.js';
import { DEMO_BANK_ID } from '../src/domain/banks.js';
import { startRuntime } from '../src/main/bootstrap.js';
import { createLogger } from '../src/runtime/logger.js';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.js';
import { freePort, quipu, type ServerProcess, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';
import type { LoadOptions } from './load.js';

const JSON_BODY = { 'content-type': 'application/json' };
/** A payer whose mandate DemoBank activates at once and whose debits settle (demo-bank-scenarios.ts). */
const PAYER = '11.111.111-1';

export interface ChargeServer {
  url: string;
  headers: Record<string, string>;
  database: TestDatabase;
  subscriptionId: string;
  /** POST /v1/automatic-payment/charge-intent on the enabled subscription. */
  charge: LoadOptions;
  /** POST /v3/payments with the same amount, subject and URLs. */
  create: LoadOptions;
  stop(): Promise<void>;
}

async function signAtDemoBank(env: Record<string, string>, subscriptionId: string): Promise<void> {
  const runtime = await startRuntime(loadConfig(env), createLogger('warn', 2));
  try {
    const signing = await startMandateSigning(runtime.ctx, subscriptionId, DEMO_BANK_ID);
    await signInForMandate(runtime.ctx, signing.signingId, { identifier: PAYER, password: '1234' });
    await signMandate(runtime.ctx, signing.signingId, [...DEMO_COORDINATES.pay]);
  } finally {
    await runtime.close();
  }
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Record<string, string>> {
  const res = await fetch(url, { method: 'POST', headers: { ...JSON_BODY, ...headers }, body: JSON.stringify(body) });
  const answer = (await res.json()) as Record<string, string>;
  if (res.status !== 200) throw new Error(`POST ${url} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** A charge intent on the subscription and a v3 payment create with the same amount, subject and URLs, their callbacks to `notifyUrl`. */
export function chargeBodies(subscriptionId: string, notifyUrl: string): { charge: object; payment: object } {
  const common = { amount: 1000, subject: 'Bench order', transaction_id: 'INV-1', notify_url: notifyUrl, notify_api_version: '3.0' };
  return {
    charge: { ...common, subscription_id: subscriptionId, body: 'Monthly fee', custom: 'bench', error_response_url: notifyUrl },
    payment: { ...common, currency: 'CLP', return_url: 'https://shop.example/return' },
  };
}

/**
 * Callbacks (the signing's, the charges' notifications and errors) go to `notifyUrl`. `workers`:
 * `quipu worker` processes beside the server, sharing its jobs and deliveries.
 */
export async function startChargeServer(
  kind: 'sqlite' | 'postgres',
  adminUrl: string,
  notifyUrl: string,
  settings: Record<string, string> = {},
  workers = 0,
): Promise<ChargeServer> {
  const database = await createTestDatabase(kind, adminUrl);
  const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn', ...settings };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const processEnv = { ...env, PUBLIC_BASE_URL: url, DEMO_ACCOUNT: 'false' };
  const server = startServerProcess({ ...processEnv, PORT: String(port) });
  const others: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all([server, ...others].map((p) => p.stop()));
    await database.drop();
  };
  try {
    await waitForHttp(`${url}/readyz`);
    // Started once the server has migrated the database.
    for (let i = 0; i < workers; i++) others.push(startServerProcess(processEnv, ['worker']));
    const account = JSON.parse((await quipu(['merchants', 'create', '--name', 'Bench', '--json'], env)).stdout);
    const headers = { 'x-api-key': account.api_key as string };
    const { subscription_id: subscriptionId } = await post(`${url}/v1/automatic-payment/subscription`, headers, {
      name: 'Bench membership',
      email: 'payer@example.com',
      max_amount: 100000,
      currency: 'CLP',
      notify_url: notifyUrl,
      return_url: 'https://shop.example/return',
      cancel_url: 'https://shop.example/cancel',
    });
    await signAtDemoBank(env, subscriptionId!);
    const status = await fetch(`${url}/v1/automatic-payment/subscription/${subscriptionId}`, { headers }).then((r) => r.json() as Promise<{ status: string }>);
    if (status.status !== 'ENABLED') throw new Error(`the bench subscription is ${status.status}, not ENABLED`);
    const { charge, payment } = chargeBodies(subscriptionId!, notifyUrl);
    const pid = server.child.pid!;
    return {
      url,
      headers,
      database,
      subscriptionId: subscriptionId!,
      charge: { url: `${url}/v1/automatic-payment/charge-intent`, method: 'POST', headers: { ...JSON_BODY, ...headers }, body: JSON.stringify(charge), pid },
      create: { url: `${url}/v3/payments`, method: 'POST', headers: { ...JSON_BODY, ...headers }, body: JSON.stringify(payment), pid },
      stop,
    };
  } catch (error) {
    await stop();
    throw new Error(`the charge bench server did not get ready: ${(error as Error).message}\n${[server, ...others].map((p) => p.output()).join('\n')}`);
  }
}
