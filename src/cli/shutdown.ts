// A long-running command (server, worker) stops gracefully on SIGINT or SIGTERM, once. A server
// drains first: for SHUTDOWN_DRAIN_MS it goes on serving while /readyz says it is not ready, so
// that a load balancer stops sending it requests before its listener closes (new connections
// would be refused). A second signal cuts the drain short.
import type { Logger } from 'pino';

export interface Drain {
  ms: number;
  /** At the first signal: from then on the process says it is not ready. */
  begin(): void;
}

export function closeOnSignals(log: Logger, close: () => Promise<void>, drain?: Drain): void {
  let closing = false;
  let endDrain: (() => void) | undefined;
  const shutdown = async (signal: string) => {
    if (closing) return endDrain?.();
    closing = true;
    const drainMs = drain?.ms ?? 0;
    log.info({ signal, drainMs }, drainMs > 0 ? 'shutting down: not ready, still serving while the drain lasts' : 'shutting down');
    if (drain && drainMs > 0) {
      drain.begin();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, drainMs);
        endDrain = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      endDrain = undefined;
    }
    try {
      await close();
    } catch (error) {
      log.error({ err: error }, 'shutting down failed');
      process.exitCode = 1;
    }
    process.exit();
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
