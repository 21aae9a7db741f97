// The process logger: JSON lines (pino) that carry the request id of each request, on stdout (or
// stderr for commands) and, with LOG_DESTINATION, also sent as they are written to a collector on
// another machine (pino-socket: TCP, TLS or UDP; `stdout` says the platform ships stdout), so that a copy of every line, audit records
// included, is out of reach of whoever takes this machine.
import pino, { type Logger } from 'pino';
import type { LogDestination, LogLevel } from '../config.js';

/** Lines written while the collector is unreachable wait in memory up to this, oldest dropped first. */
const RECOVERY_QUEUE_BYTES = 8 * 1024 * 1024;

/** `fd` 2 keeps command-line output (stdout) clean for `--json`. */
export function createLogger(level: LogLevel, fd: 1 | 2 = 1, destination?: LogDestination | 'stdout'): Logger {
  const options = { level, base: { service: 'quipu' }, redact: ['req.headers["x-api-key"]', 'req.headers.authorization'] };
  if (!destination || destination === 'stdout' || level === 'silent') return pino(options, pino.destination(fd));
  const streams = pino.multistream([{ level, stream: pino.destination(fd) }]);
  const log = pino(options, streams);
  // Lines go to the collector from its first connection on; until then, and always, to `fd`.
  void import('pino-socket')
    .then(async ({ default: socketTransport }) => {
      const stream = await socketTransport({
        address: destination.host,
        port: destination.port,
        mode: destination.protocol === 'udp' ? 'udp' : 'tcp',
        secure: destination.protocol === 'tls',
        reconnect: true,
        recovery: true,
        recoveryQueueMaxSize: RECOVERY_QUEUE_BYTES,
      });
      streams.add({ level, stream });
      log.info({ logDestination: `${destination.protocol}://${destination.host}:${destination.port}` }, 'log lines are sent to the collector');
    })
    .catch((error: unknown) => log.error({ err: error }, 'log lines cannot be sent to LOG_DESTINATION'));
  return log;
}
