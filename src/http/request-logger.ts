// Fastify gives every request a child logger bound to its request id. Building a pino child
// serialises its bindings, which costs more than the rest of a cached GET's own work, and nearly
// every request logs nothing at the configured level. This logger builds the child only when a
// line is actually written at an enabled level.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

class RequestLogger {
  #child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  #logger(): Logger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  #write(level: Level, args: unknown[]): void {
    // A level of its own (a route's logLevel) is pino's to judge: the child is built at once.
    if (this.#child === undefined && this.options.level === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.#logger()[level] as (...values: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return this.#child === undefined && this.options.level === undefined ? this.parent.isLevelEnabled(level) : this.#logger().isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: the process logger is pino's (src/runtime/logger.ts). */
export function requestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(parent as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
