// The process logger: JSON lines (pino) that carry the request id of each request.
import pino, { type Logger } from 'pino';
import type { LogLevel } from '../config.js';

/** `fd` 2 keeps command-line output (stdout) clean for `--json`. */
export function createLogger(level: LogLevel, fd: 1 | 2 = 1): Logger {
  return pino({ level, base: { service: 'quipu' }, redact: ['req.headers["x-api-key"]', 'req.headers.authorization'] }, pino.destination(fd));
}
