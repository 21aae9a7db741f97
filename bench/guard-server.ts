// A `quipu serve` of one build for the performance guard (guard.ts), and its four measures, each
// the work of one round per second of the clock and per second of the server's event-loop CPU:
// reads and creates of the v3 API under autocannon; payments paid by the operator's credits until
// their notifications reach a receiver; charges from their intents until their notifications reach
// it, through the debit job and DemoBank. The server's own build makes its accounts (quipuCommand)
// and everything else goes over HTTP, so any build can be measured.
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../src/store/database.js';
import { PRODUCTION_SETTINGS } from '../test/helpers/production.js';
import { startQuipu } from './api.js';
import { deliveredNotifications, moveClockPastSettlement, unsubmittedDebits, until } from './charge-pipeline.js';
import { chargeBodies } from './charge-server.js';
import type { Receiver } from './delivery.js';
import { untilDelivered } from './delivery-wait.js';
import type { Measure } from './guard-options.js';
import { eventLoopCpuMs, load, loadHere, type LoadOptions } from './load.js';
import { createPayments, payByCredits } from './paid-payments.js';
import { quipuCommand } from './quipu-command.js';

const OPERATOR_TOKEN = 'operator-token-of-the-performance-guard';
/**
 * --production: the settings a production installation must have, its secrets as a platform hands
 * them over (as environment variables, which builds older than `<NAME>_FILE` take too), its sign-in
 * to PostgreSQL accepted, its rate limit on.
 */
const { QUIPU_ENCRYPTION_KEY_FILE, ...SETTINGS } = PRODUCTION_SETTINGS;
const PRODUCTION = {
  ...SETTINGS,
  QUIPU_ENCRYPTION_KEY: fs.readFileSync(QUIPU_ENCRYPTION_KEY_FILE!, 'utf8').trim(),
  SECRETS_FROM_ENVIRONMENT: 'true',
  DATABASE_CREDENTIALS_ACCEPTED: 'true',
  // On, as in production, at the highest it goes: the limit's work per request is measured, never a 429.
  API_RATE_LIMIT: '1000000',
};
/** A production account, whose notify_url registers the host the bench's payments notify (NOTIFY_URL_ACCOUNT_HOSTS is on there). */
const PRODUCTION_ACCOUNT = ['--production', '--notify-url', 'https://shop.example/notify'];
const CONNECTIONS = 32;
const AMOUNT = 1000;
/** Clients creating the payments a delivery measure pays (not timed). */
const CREATING_CLIENTS = 8;
/** The most a round may wait for every debit submitted: far more than one takes. */
const SUBMISSION_LIMIT_MS = 60_000;
/** How often a charge round looks whether every debit is submitted: a small part of the round. */
const SUBMISSION_POLL_MS = 10;

export interface Round {
  /** Requests, notifications or charges per second. */
  rate: number;
  /** The same per second of CPU time of the server's event loop: what it does with the share of the cores it gets. */
  perCpuSecond: number;
  /** Failed requests and answers other than 2xx; notifications not delivered. */
  errors: number;
}

export interface GuardServer {
  measure(measure: Measure, seconds: number, payments: number): Promise<Round>;
  stop(): Promise<void>;
}

const JSON_BODY = { 'content-type': 'application/json' };

async function enabledSubscription(url: string, headers: Record<string, string>): Promise<string> {
  const ran = await fetch(`${url}/sandbox/scenarios/mandate-enabled/run`, { method: 'POST', headers });
  const answer = (await ran.json()) as { outcome?: string; subscription?: { subscription_id: string } };
  if (ran.status !== 200 || answer.outcome !== 'ENABLED') throw new Error(`the mandate-enabled scenario answered ${ran.status}: ${JSON.stringify(answer)}`);
  return answer.subscription!.subscription_id;
}

/** An account of its own for charges, which move its clock (the other measures' account keeps its own), and its charge intent. */
async function chargesAccount(url: string, env: Record<string, string>, entry: string[], receiver: Receiver) {
  const account = JSON.parse(await quipuCommand(['merchants', 'create', '--name', 'Bench charges', '--notify-url', receiver.url, '--json'], env, entry));
  const headers = { ...JSON_BODY, 'x-api-key': account.api_key as string };
  const { charge } = chargeBodies(await enabledSubscription(url, headers), receiver.url);
  const intent: LoadOptions = { url: `${url}/v1/automatic-payment/charge-intent`, method: 'POST', headers, body: JSON.stringify(charge) };
  return { headers, intent };
}

/** `entry`: node's arguments that run the build's `quipu`. */
export async function startGuardServer(kind: 'sqlite' | 'postgres', entry: string[], receiver: Receiver, production = false): Promise<GuardServer> {
  const quipu = await startQuipu(kind, { OPERATOR_TOKEN, ...(production ? PRODUCTION : {}) }, production ? PRODUCTION_ACCOUNT : [], entry);
  const watcher = openDatabase(quipu.databaseUrl, { poolSize: 2 });
  const db = watcher.db as Kysely<any>;
  const serverCpuMs = () => eventLoopCpuMs(quipu.pid);
  // Made by the first charge measure: the short form takes none.
  let charges: ReturnType<typeof chargesAccount> | undefined;

  const api = async (options: LoadOptions, seconds: number): Promise<Round> => {
    const cpuBefore = serverCpuMs();
    const r = await loadHere({ ...options, connections: CONNECTIONS, seconds });
    const answered = r.requests!;
    return {
      rate: answered / ((r.finishedAt! - r.startedAt!) / 1000),
      perCpuSecond: answered / ((serverCpuMs() - cpuBefore) / 1000),
      errors: r.errors + r.non2xx,
    };
  };

  /** From `startedAt` (epoch ms, the server's CPU then at `cpuBefore`) until `n` notifications more than `before` are delivered. */
  const notified = async (n: number, startedAt: number, cpuBefore: number, before: number): Promise<Round> => {
    const delivered = await untilDelivered(
      n,
      performance.now(),
      async () => (await receiver.stats()).distinct,
      async () => (await deliveredNotifications(db)) - before,
    );
    const seconds = (Date.now() - startedAt) / 1000;
    return { rate: delivered / seconds, perCpuSecond: delivered / ((serverCpuMs() - cpuBefore) / 1000), errors: n - delivered };
  };

  const delivery = async (n: number): Promise<Round> => {
    const ids = await createPayments(
      quipu,
      n,
      () => ({ amount: AMOUNT, currency: 'CLP', subject: 'Bench order', notify_url: receiver.url, notify_api_version: '3.0' }),
      CREATING_CLIENTS,
    );
    await receiver.reset();
    const before = await deliveredNotifications(db);
    const [startedAt, cpuBefore] = [Date.now(), serverCpuMs()];
    await payByCredits(quipu.url, OPERATOR_TOKEN, ids, AMOUNT);
    return notified(n, startedAt, cpuBefore, before);
  };

  const charge = async (n: number): Promise<Round> => {
    const env = { DATABASE_URL: quipu.databaseUrl, DATA_DIR: quipu.dataDir, LOG_LEVEL: 'warn' };
    const { headers, intent } = await (charges ??= chargesAccount(quipu.url, env, entry, receiver));
    await receiver.reset();
    const before = await deliveredNotifications(db);
    const cpuBefore = serverCpuMs();
    const created = await load({ ...intent, connections: CONNECTIONS, amount: n });
    // The debit job is due every 5 s of the account's clock: moved that far, it runs for the account at once.
    const moved = await fetch(`${quipu.url}/sandbox/clock`, { method: 'POST', headers, body: '{"advance":"5s"}' });
    if (moved.status !== 200) throw new Error(`moving the developer clock answered ${moved.status}: ${await moved.text()}`);
    await until(SUBMISSION_LIMIT_MS, 'every debit submitted', async () => (await unsubmittedDebits(db)) === 0, SUBMISSION_POLL_MS);
    await moveClockPastSettlement(quipu.url, headers);
    const round = await notified(n, created.startedAt!, cpuBefore, before);
    return { ...round, errors: round.errors + created.errors + created.non2xx };
  };

  const measures: Record<Measure, (seconds: number, payments: number) => Promise<Round>> = {
    get: (seconds) => api(quipu.get, seconds),
    create: (seconds) => api(quipu.create, seconds),
    delivery: (_seconds, payments) => delivery(payments),
    charge: (_seconds, payments) => charge(payments),
  };
  return {
    measure: (measure, seconds, payments) => measures[measure](seconds, payments),
    stop: async () => {
      await watcher.close();
      await quipu.stop();
    },
  };
}
