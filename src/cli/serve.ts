// `quipu serve`: the HTTP server and, unless RUN_WORKER is off, the notification delivery worker
// and the background jobs.
import net from 'node:net';
import { ensureDemoAccount } from '../app/demo-account.js';
import type { Config } from '../config.js';
import { Readiness } from '../http/health.js';
import { buildServer } from '../http/server.js';
import { startBackgroundWork } from '../main/background.js';
import { createLogger } from '../runtime/logger.js';
import { recordPublicBaseUrl } from '../store/public-base-url.js';
import { describeClock } from './clock.js';
import { announceDatabase } from './database-choice.js';
import { loadServiceConfig, startService } from './service-config.js';
import { closeOnSignals } from './shutdown.js';

export async function serve(): Promise<void> {
  const config = loadServiceConfig();
  if (!config) return;
  const log = createLogger(config.logLevel, 1, config.logDestination);
  // Its routes seal and open operation descriptors: a key of the ring that does not open, or the
  // key of an operation still open that is missing, stops it here.
  const runtime = await startService(config, log, (ctx) => ctx.descriptorKeys.problems());
  if (!runtime) return;
  const readiness = new Readiness();
  const app = await buildServer(runtime.ctx, readiness);
  let address: string;
  try {
    // The port is tried before a new database's demo account is made: a start that cannot listen
    // must not make an account whose credentials its next start would not print.
    await tryListening(config.host, config.port);
    // Printed before listening: whoever waits for /healthz finds the credentials already printed.
    if (config.demoAccount) printDemoAccount(config, await ensureDemoAccount(runtime.ctx));
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const reason = listenFailure(error as NodeJS.ErrnoException, config.host, config.port);
    if (!reason) throw error;
    console.error(`quipu: cannot start: ${reason}`);
    process.exitCode = 2;
    await app.close();
    await runtime.close();
    return;
  }
  // Named once listening, so that a start that fails says one thing: why.
  announceDatabase(config);
  // What the one-shot commands write links with when their environment names no URL (cli/public-url.ts).
  await recordPublicBaseUrl(runtime.ctx.db, config.publicBaseUrl);
  // Stopped gracefully from the moment it says it listens: a signal right after must not kill it.
  const background = config.runWorker ? startBackgroundWork(runtime.ctx) : undefined;
  const drain = { ms: config.shutdownDrainMs, begin: () => (readiness.draining = true) };
  closeOnSignals(
    log,
    async () => {
      await app.close();
      await background?.stop();
      await runtime.close();
    },
    drain,
  );
  log.info({ address, publicBaseUrl: config.publicBaseUrl, database: config.databaseUrl.split(':')[0] }, 'quipu is listening');
  if (!config.sandbox && !config.operatorToken) log.warn(OPERATOR_API_OFF);
  if (runtime.ctx.clocks.offsetMs !== 0)
    console.log(`The developer clock is ahead of real time: ${describeClock(runtime.ctx.clocks)}; \`quipu clock reset\` brings it back.`);
}

// A production installation may run without the operator API, but its operator should know: bank
// credits cannot be posted, and /metrics cannot be scraped. (A token shorter than 32 characters
// stops the start instead: config.ts.)
const OPERATOR_API_OFF =
  'OPERATOR_TOKEN is not set: the operator API (/operator/v1) and /metrics answer 403 to every request; set a token of at least 32 characters (openssl rand -hex 32) to turn them on';

/** Resolves when `host:port` can be listened on; rejects with the error listening there meets. */
function tryListening(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ host, port }, () => probe.close(() => resolve()));
  });
}

/** The credentials of a demo account made now (undefined: the database already had accounts). */
function printDemoAccount(config: Config, demo: Awaited<ReturnType<typeof ensureDemoAccount>>): void {
  if (!demo) return;
  console.log(
    [
      '',
      'Quipu created a developer-mode demo account in the new database (printed at its first start only):',
      `  receiver_id  ${demo.receiver_id}`,
      `  secret       ${demo.secret}`,
      `  api_key      ${demo.api_key}`,
      '',
      `  dashboard    ${config.dashboardBaseUrl ?? config.publicBaseUrl}/`,
      `  email        ${demo.email}`,
      `  password     ${demo.password}`,
      '',
      `  curl -H 'x-api-key: ${demo.api_key}' ${config.publicBaseUrl}/v3/banks`,
      `  API reference: ${config.publicBaseUrl}/docs`,
      '',
    ].join('\n'),
  );
}

/** What an operator reads when the port cannot be had; undefined for a failure that is not theirs to fix. */
function listenFailure(error: NodeJS.ErrnoException, host: string, port: number): string | undefined {
  if (error.code === 'EADDRINUSE') return `port ${port} on ${host} is already in use: stop what listens there, or set PORT to another port`;
  if (error.code === 'EACCES') return `no permission to listen on port ${port}: use a port above 1023 (PORT), or run with the privilege to bind it`;
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return `HOST ${host} is not an address of this machine`;
  return undefined;
}
