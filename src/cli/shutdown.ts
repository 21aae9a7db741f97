// A long-running command (server, worker) stops gracefully on SIGINT or SIGTERM, once.
import type { Logger } from 'pino';

export function closeOnSignals(log: Logger, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
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
