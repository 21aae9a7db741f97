// Where the record of each API request goes (docs/request-logs.md): one interface, chosen once per
// process at the composition root (main/request-records.ts, REQUEST_LOG_STORE), so that the hook
// that records (http/request-log-hook.ts), the dashboard's page, `quipu listen`, the prune job and
// an account's deletion never know which. A table Quipu reads back (table-request-records.ts: a file
// of its own, or the API's database), the log stream, or nowhere.
import type { Logger } from 'pino';
import type { RequestLogStore } from '../config.js';
import type { RequestLogFilter } from '../store/request-logs.js';
import type { NewRequestLogRow, RequestLogRow } from '../store/schema.js';

/** Rows kept in a table: read by the dashboard and `quipu listen`, pruned, forgotten with their account. */
export interface KeptRequestRecords {
  /** The account's rows, newest first. */
  ofAccount(receiverId: number, filter: RequestLogFilter): Promise<RequestLogRow[]>;
  find(id: number): Promise<RequestLogRow | undefined>;
  /** The highest id there is. */
  last(): Promise<number>;
  /** In id order, at most `limit`: the rows after `afterId`, and those of `ids`. */
  after(afterId: number, ids: readonly number[], limit: number): Promise<RequestLogRow[]>;
  /** Up to `limit` of the rows answered before `before`, oldest first; how many went. */
  prune(before: number, limit: number): Promise<number>;
  /** Every row of an account that was deleted. */
  forget(receiverId: number): Promise<void>;
}

export interface RequestRecords {
  readonly store: RequestLogStore;
  /** False where no row added would go anywhere (off; the log stream at a level that writes no info line): the hook is not installed. */
  readonly recording: boolean;
  /** The row of a request answered: never waited for by its answer. */
  add(row: NewRequestLogRow): void;
  /** Settles once every row added so far has gone where it goes. */
  flush(): Promise<void>;
  /** Undefined where the rows are not kept for Quipu to read back: the log stream, or off. */
  readonly kept: KeptRequestRecords | undefined;
  /** Flushes, then lets go of what it holds open. */
  close(): Promise<void>;
}

const done = () => Promise.resolve();

/**
 * Each row one line at info on the process's log, which LOG_DESTINATION ships off the machine: a
 * production installation's API requests go to its event stream, never to its transactional
 * store, as Hyperswitch sends its API events. pino writes the line; there is nothing to flush. At
 * LOG_LEVEL warn or above no such line is written: nothing is recorded, and no request builds a row.
 */
export function logStreamRecords(log: Logger): RequestRecords {
  return { store: 'log', recording: log.isLevelEnabled('info'), add: (row) => log.info(row, 'api request'), flush: done, kept: undefined, close: done };
}

/** REQUEST_LOG_STORE=off or REQUEST_LOG_RETENTION_DAYS=0: the hook is not even installed, so nothing is ever added. */
export const NO_REQUEST_RECORDS: RequestRecords = { store: 'off', recording: false, add: () => undefined, flush: done, kept: undefined, close: done };
