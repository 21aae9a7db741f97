// The background work of a long-running process: the delivery worker and the job runner. `quipu
// worker` runs only these; `quipu serve` runs them beside its server unless RUN_WORKER=false.
import type { AppContext } from '../app/context.js';
import { JobRunner } from '../jobs/runner.js';
import { deliveryWorker } from './delivery-worker.js';

export interface BackgroundWork {
  /** Lets the messages in flight and the job runs in progress finish, and takes no more. */
  stop(): Promise<void>;
}

export function startBackgroundWork(ctx: AppContext): BackgroundWork {
  const delivery = deliveryWorker(ctx);
  const jobs = new JobRunner(ctx);
  delivery.start();
  jobs.start();
  ctx.log.info({ concurrency: ctx.config.deliveryConcurrency, database: ctx.config.databaseUrl.split(':')[0] }, 'notification delivery worker started');
  ctx.log.info({ pollMs: ctx.config.jobsPollMs }, 'background jobs started');
  return {
    stop: async () => {
      await Promise.all([delivery.stop(), jobs.stop()]);
    },
  };
}
