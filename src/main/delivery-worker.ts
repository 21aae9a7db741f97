// The delivery worker of a process, given from its context only what it uses: the database, the
// clock, randomness, the log, the accounts' lookup and a transport per channel. Assembled here so
// that delivery/ knows nothing of the use cases' context.
import type { AppContext } from '../app/context.js';
import { accountFaults } from '../app/sandbox-faults.js';
import type { Config } from '../config.js';
import { emailTransport } from '../delivery/email-transport.js';
import { HttpTransport } from '../delivery/http-transport.js';
import { DeliveryWorker, type WorkerOptions } from '../delivery/worker.js';

export function workerOptions(config: Config): WorkerOptions {
  return {
    concurrency: config.deliveryConcurrency,
    perDestination: config.deliveryConcurrencyPerDestination,
    batchSize: config.deliveryBatchSize,
    pollMs: config.deliveryPollMs,
    leaseMs: config.deliveryLeaseMs,
    timeoutMs: config.deliveryTimeoutMs,
  };
}

export function deliveryWorker(ctx: AppContext, options: WorkerOptions = workerOptions(ctx.config)): DeliveryWorker {
  const { timeoutMs, perDestination } = options;
  return new DeliveryWorker(
    {
      db: ctx.db,
      clock: ctx.clocks,
      random: ctx.random,
      log: ctx.log,
      account: (receiverId) => ctx.merchants.byReceiverId(receiverId),
      sandbox: ctx.config.sandbox,
      faults: ctx.config.sandbox ? (receiverId) => accountFaults(ctx, receiverId) : undefined,
      transports: {
        http: new HttpTransport(timeoutMs, perDestination, ctx.config.notifyDestinations),
        email: emailTransport(ctx.config, ctx.log, timeoutMs, perDestination),
      },
    },
    options,
  );
}
