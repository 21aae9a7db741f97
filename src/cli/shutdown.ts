// A long-running command (server, worker) stops gracefully on SIGINT or SIGTERM, once. A server
// drains first: for SHUTDOWN_DRAIN_MS it goes on serving while /readyz says it is not ready, so
// that a load balancer stops sending it requests before its listener closes (new connections
// would be refused). A second signal cuts the drain short.
//
// npm runs a script (`npm start`) or a package's command (`npx quipu serve`) in a shell, and passes
// SIGTERM and SIGINT to that shell alone: Debian's sh (dash) ends without passing them on, and the
// server, left behind, went on serving and holding its port. So a command npm started also stops,
// as on a signal, once the process that started it is gone.
import type { Logger } from 'pino';

const PARENT_POLL_MS = 250;
/** Read as this module loads, early in the command: a parent gone before then would go unnoticed. */
const parentAtStart = process.ppid;
const startedByNpm = process.env.npm_lifecycle_event !== undefined;

export interface Drain {
  ms: number;
  /** At the first signal: from then on the process says it is not ready. */
  begin(): void;
}

export function closeOnSignals(log: Logger, close: () => Promise<void>, drain?: Drain): void {
  let closing = false;
  let endDrain: (() => void) | undefined;
  const shutdown = async (cause: { signal: NodeJS.Signals } | { parent: 'gone' }) => {
    if (closing) return endDrain?.();
    closing = true;
    const drainMs = drain?.ms ?? 0;
    log.info({ ...cause, drainMs }, drainMs > 0 ? 'shutting down: not ready, still serving while the drain lasts' : 'shutting down');
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
  process.on('SIGINT', () => void shutdown({ signal: 'SIGINT' }));
  process.on('SIGTERM', () => void shutdown({ signal: 'SIGTERM' }));
  if (!startedByNpm) return;
  const parentWatch = setInterval(() => {
    if (process.ppid === parentAtStart) return;
    clearInterval(parentWatch);
    void shutdown({ parent: 'gone' });
  }, PARENT_POLL_MS).unref();
}
