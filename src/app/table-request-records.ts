// The request log kept in a table Quipu reads back: written in batches (request-log.ts), read,
// pruned and forgotten through the same queries (store/request-logs.ts) wherever the table is: a
// file of its own (REQUEST_LOG_STORE=file, store/request-log-file.ts) or the API's database
// (REQUEST_LOG_STORE=database, migration 030).
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { existingReceiverIds } from '../store/merchants.js';
import type { RequestLogFile } from '../store/request-log-file.js';
import {
  accountRequestLogs,
  findRequestLog,
  forgetRequestLogs,
  insertRequestLogs,
  lastRequestLogId,
  listRequestLogsAfter,
  pruneRequestLogBatch,
  type RequestLogFilter,
} from '../store/request-logs.js';
import type { DB, NewRequestLogRow, RequestLogRow } from '../store/schema.js';
import { RequestLog } from './request-log.js';
import type { KeptRequestRecords, RequestRecords } from './request-records.js';

interface Table {
  store: 'file' | 'database';
  db(): Promise<Kysely<DB>>;
  write(rows: readonly NewRequestLogRow[]): Promise<void>;
  close(): Promise<void>;
}

class TableRequestRecords implements RequestRecords, KeptRequestRecords {
  readonly store: Table['store'];
  readonly recording = true;
  readonly kept: KeptRequestRecords = this;
  readonly #batch: RequestLog;

  constructor(
    private readonly table: Table,
    private readonly log: Logger,
  ) {
    this.store = table.store;
    this.#batch = new RequestLog((rows) => table.write(rows), log);
  }

  add(row: NewRequestLogRow): void {
    this.#batch.add(row);
  }

  flush(): Promise<void> {
    return this.#batch.flush();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.table.close();
  }

  async ofAccount(receiverId: number, filter: RequestLogFilter): Promise<RequestLogRow[]> {
    return accountRequestLogs(await this.table.db(), receiverId, filter);
  }

  async find(id: number): Promise<RequestLogRow | undefined> {
    return findRequestLog(await this.table.db(), id);
  }

  async last(): Promise<number> {
    return lastRequestLogId(await this.table.db());
  }

  async after(afterId: number, ids: readonly number[], limit: number): Promise<RequestLogRow[]> {
    return listRequestLogsAfter(await this.table.db(), afterId, ids, limit);
  }

  async prune(before: number, limit: number): Promise<number> {
    return pruneRequestLogBatch(await this.table.db(), before, limit);
  }

  /** A failure is logged and the account's deletion stands: the rows left are pruned with their age. */
  async forget(receiverId: number): Promise<void> {
    try {
      await forgetRequestLogs(await this.table.db(), [receiverId]);
    } catch (error) {
      this.log.warn({ err: error, receiverId }, 'request log rows not forgotten');
    }
  }
}

/** In the API's own database, whose insert takes only the rows of accounts that still exist (store/request-logs.ts). */
export function databaseRequestRecords(db: Kysely<DB>, log: Logger): RequestRecords {
  const table: Table = { store: 'database', db: async () => db, write: (rows) => insertRequestLogs(db, rows), close: async () => undefined };
  return new TableRequestRecords(table, log);
}

/**
 * In a file of its own, which holds no accounts: the rows go in, then those of accounts the API's
 * database (`accounts`) no longer holds come out again. A deletion forgets its account's rows once
 * it has committed, so a row is forgotten either by the deletion (written before it looked) or here
 * (the account found gone). The look is a read: the API's database sees no commit of the log.
 */
export function fileRequestRecords(file: RequestLogFile, accounts: Kysely<DB>, log: Logger): RequestRecords {
  const table: Table = {
    store: 'file',
    db: () => file.db(),
    write: async (rows) => {
      await file.append(rows);
      const ids = [...new Set(rows.map((row) => row.receiver_id))];
      const live = await existingReceiverIds(accounts, ids);
      await forgetRequestLogs(
        await file.db(),
        ids.filter((id) => !live.has(id)),
      );
    },
    close: () => file.close(),
  };
  return new TableRequestRecords(table, log);
}
