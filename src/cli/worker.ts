// `quipu worker`: the notification delivery worker and the background jobs on their own, for
// installations that run them apart from the API servers (set RUN_WORKER=false on those). Any
// number may run against one PostgreSQL database.
import { DeliveryWorker } from '../delivery/worker.js';
import { JobRunner } from '../jobs/runner.js';
import { createLogger } from '../runtime/logger.js';
import { announceDatabase } from './database-choice.js';
import { loadServiceConfig, startService } from './service-config.js';
import { closeOnSignals } from './shutdown.js';

export async function worker(): Promise<void> {
  const config = loadServiceConfig();
  if (!config) return;
  announceDatabase(config);
  const log = createLogger(config.logLevel);
  const runtime = await startService(config, log);
  if (!runtime) return;
  const delivery = new DeliveryWorker(runtime.ctx);
  const jobs = new JobRunner(runtime.ctx);
  delivery.start();
  jobs.start();
  log.info({ concurrency: config.deliveryConcurrency, database: config.databaseUrl.split(':')[0] }, 'notification delivery worker started');
  log.info({ pollMs: config.jobsPollMs }, 'background jobs started');
  closeOnSignals(log, async () => {
    await Promise.all([delivery.stop(), jobs.stop()]);
    await runtime.close();
  });
}
