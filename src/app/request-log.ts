// The rows of a request log kept in a table (table-request-records.ts), batched: a request's answer
// never waits for its row. Rows are kept in the process and written together, one statement every
// FLUSH_MS (sooner only past MAX_ROWS), and at close: every commit costs, wherever the table is, so
// the log commits five times a second however busy the server is. A crash loses the rows of that
// last fraction of a second, which is a log's loss, never the account's: nothing reads these rows
// to decide anything. A failed write is logged and its rows dropped, for the same reason.
import type { Logger } from 'pino';
import type { NewRequestLogRow } from '../store/schema.js';

export const FLUSH_MS = 200;
/** A bound on the memory the rows take between two writes under any load: 20 MB were every one a 4 KB error answer. */
export const MAX_ROWS = 5_000;

export class RequestLog {
  #rows: NewRequestLogRow[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #writing = new Set<Promise<void>>();

  constructor(
    private readonly write: (rows: readonly NewRequestLogRow[]) => Promise<void>,
    private readonly log: Logger,
  ) {}

  add(row: NewRequestLogRow): void {
    this.#rows.push(row);
    if (this.#rows.length >= MAX_ROWS) void this.flush();
    // Unreferenced: a process with nothing else to do does not stay up for its log.
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes the rows kept so far; settles once they and every write before them are done. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const rows = this.#rows;
    this.#rows = [];
    if (rows.length > 0) {
      const write = this.write(rows).then(
        () => undefined,
        (error: unknown) => this.log.warn({ err: error, rows: rows.length }, 'request log rows not written'),
      );
      this.#writing.add(write);
      void write.finally(() => this.#writing.delete(write));
    }
    return Promise.all(this.#writing).then(() => undefined);
  }
}
