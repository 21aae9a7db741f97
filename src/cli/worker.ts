// `quipu worker`: a notification delivery worker on its own, for installations that run delivery
// apart from the API servers (set RUN_WORKER=false on those). Any number may run against one
// PostgreSQL database.
import { loadConfig } from '../config.js';
import { DeliveryWorker } from '../delivery/worker.js';
import { startRuntime } from '../runtime/bootstrap.js';
import { createLogger } from '../runtime/logger.js';
import { closeOnSignals } from './shutdown.js';

export async function worker(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const runtime = await startRuntime(config, log, { longRunning: true });
  const delivery = new DeliveryWorker(runtime.ctx);
  delivery.start();
  log.info({ concurrency: config.deliveryConcurrency, database: config.databaseUrl.split(':')[0] }, 'notification delivery worker started');
  closeOnSignals(log, async () => {
    await delivery.stop();
    await runtime.close();
  });
}
