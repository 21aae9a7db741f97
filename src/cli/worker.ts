// `quipu worker`: the notification delivery worker and the background jobs on their own, for
// installations that run them apart from the API servers (set RUN_WORKER=false on those). Any
// number may run against one PostgreSQL database.
import { startBackgroundWork } from '../main/background.js';
import { createLogger } from '../runtime/logger.js';
import { announceDatabase } from './database-choice.js';
import { announceServer, followServer } from './public-url.js';
import { loadServiceConfig, startService } from './service-config.js';
import { closeOnSignals } from './shutdown.js';

export async function worker(): Promise<void> {
  const config = loadServiceConfig();
  if (!config) return;
  const log = createLogger(config.logLevel, 1, config.logDestination);
  // Delivery and the jobs open no operation descriptor: a broken descriptor key ring is the
  // server's to report, not a reason to stop sending.
  const runtime = await startService(config, log);
  if (!runtime) return;
  // Named once started, as `quipu serve` does, so that a start that fails says one thing: why.
  announceDatabase(config);
  // Reminders and reports carry links: the server's, when the environment names none.
  announceServer(runtime.ctx, await followServer(runtime.ctx));
  const background = startBackgroundWork(runtime.ctx);
  closeOnSignals(log, async () => {
    await background.stop();
    await runtime.close();
  });
}
