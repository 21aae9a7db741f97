// `quipu serve`: the HTTP server and, unless RUN_WORKER is off, the notification delivery worker
// and the background jobs.
import { ensureDemoAccount } from '../app/demo-account.js';
import { DeliveryWorker } from '../delivery/worker.js';
import { buildServer } from '../http/server.js';
import { JobRunner } from '../jobs/runner.js';
import { startRuntime } from '../runtime/bootstrap.js';
import { createLogger } from '../runtime/logger.js';
import { loadServiceConfig } from './service-config.js';
import { closeOnSignals } from './shutdown.js';

export async function serve(): Promise<void> {
  const config = loadServiceConfig();
  if (!config) return;
  const log = createLogger(config.logLevel);
  const runtime = await startRuntime(config, log, { longRunning: true });
  const demo = config.demoAccount ? await ensureDemoAccount(runtime.ctx) : undefined;
  const app = await buildServer(runtime.ctx);
  const address = await app.listen({ port: config.port, host: config.host });
  log.info({ address, publicBaseUrl: config.publicBaseUrl, database: config.databaseUrl.split(':')[0] }, 'quipu is listening');
  if (demo) {
    console.log(
      [
        '',
        'Quipu created a developer-mode demo account (shown once; keep it):',
        `  receiver_id  ${demo.receiver_id}`,
        `  secret       ${demo.secret}`,
        `  api_key      ${demo.api_key}`,
        '',
        `  curl -H 'x-api-key: ${demo.api_key}' ${config.publicBaseUrl}/v3/banks`,
        `  API reference: ${config.publicBaseUrl}/docs`,
        '',
      ].join('\n'),
    );
  }
  const worker = config.runWorker ? new DeliveryWorker(runtime.ctx) : undefined;
  const jobs = config.runWorker ? new JobRunner(runtime.ctx) : undefined;
  worker?.start();
  jobs?.start();
  if (worker) log.info({ concurrency: config.deliveryConcurrency }, 'notification delivery worker started');
  if (jobs) log.info({ pollMs: config.jobsPollMs }, 'background jobs started');
  closeOnSignals(log, async () => {
    await app.close();
    await Promise.all([worker?.stop(), jobs?.stop()]);
    await runtime.close();
  });
}
