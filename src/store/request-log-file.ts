// The request log's own SQLite file in DATA_DIR (REQUEST_LOG_STORE=file, developer mode's default).
// It shares no commit, WAL or change mark with the API's database, whichever that is: writing the
// log five times a second never makes an answer wait for a WAL flush (wal-sync.ts), never adds to
// the API database's checkpoints, and never sends every cached payment to be read again
// (database.ts, changeMark). synchronous=NORMAL: in WAL mode no commit waits for the disk, only a
// checkpoint does; the file survives its process crashing, and a power loss costs at most its last
// commits, never the file. OFF would spare those checkpoints' flushes too, but a power loss could
// then corrupt the file, and a broken file takes the dashboard's page and `quipu listen` with it.
// Rows are inserted by a thread of their own, with its own connection: a batch of a few thousand
// rows took about a twelfth of a GET's CPU on the event loop (docs/benchmarks.md), where the
// answers are. Reads, the prune and an account's rows forgotten are rare, and stay on the
// process's connection.
// Opened with the first row written or read, so that a command that does neither never creates it.
import path from 'node:path';
import type { Kysely, Migration } from 'kysely';
import { type Database, openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import * as requestLogs from './migrations/030-request-logs.js';
import { APPEND_REQUEST_LOGS, requestLogsJson } from './request-logs.js';
import type { DB, NewRequestLogRow } from './schema.js';
import { type SqliteThread, startSqliteThread } from './sqlite-thread.js';

export const REQUEST_LOG_FILE = 'request-log.db';

/** The file's own migrations: the API database's table of migration 030, and whatever later changes it. */
const MIGRATIONS: Readonly<Record<string, Migration>> = { '030-request-logs': requestLogs };

// Evaluated by the thread (sqlite-thread.ts). Each message is a batch, answered with its number once
// committed, or with the error that failed it.
const WRITER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const append = db.prepare(workerData.sql);
parentPort.on('message', (batch) => {
  if (batch === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    append.run(batch.json);
    parentPort.postMessage({ id: batch.id });
  } catch (error) {
    parentPort.postMessage({ id: batch.id, error: String(error && error.message || error) });
  }
});
`;

/**
 * The thread that inserts the rows; a batch's promise settles once it is committed, or failed. A
 * thread that died fails what it held and what is sent to it; the file starts another.
 */
class Writer {
  readonly #thread: SqliteThread;
  readonly #waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  #next = 0;
  /** Why the thread is gone; undefined while it runs. */
  failed: Error | undefined;

  constructor(file: string) {
    this.#thread = startSqliteThread(WRITER_SOURCE, { file, sql: APPEND_REQUEST_LOGS });
    this.#thread.worker.on('message', ({ id, error }: { id: number; error?: string }) => {
      const waiting = this.#waiting.get(id);
      this.#waiting.delete(id);
      if (error === undefined) waiting?.resolve();
      else waiting?.reject(new Error(`request log rows not inserted: ${error}`));
    });
    this.#thread.worker.once('error', (error) => this.fail(error));
    void this.#thread.exited.then((code) => this.fail(new Error(`the request log's writing thread exited with code ${code}`)));
  }

  append(rows: readonly NewRequestLogRow[]): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#thread.worker.postMessage({ id, json: requestLogsJson(rows) });
    });
  }

  private fail(error: Error): void {
    this.failed ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }

  async stop(): Promise<void> {
    if (this.failed) await this.#thread.exited;
    else await this.#thread.stop();
  }
}

async function open(file: string): Promise<Database> {
  const database = openDatabase(`sqlite:${file}`, { sqliteSynchronous: 'normal' });
  try {
    await migrateToLatest(database.db, MIGRATIONS);
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}

export class RequestLogFile {
  #opened: Promise<Database> | undefined;
  #writer: Writer | undefined;

  constructor(private readonly dataDir: string) {}

  get #file(): string {
    return path.join(this.dataDir, REQUEST_LOG_FILE);
  }

  /** The file, opened and its table made on first use; a failed open is tried again at the next. */
  #open(): Promise<Database> {
    this.#opened ??= open(this.#file).catch((error: unknown) => {
      this.#opened = undefined;
      throw error;
    });
    return this.#opened;
  }

  /** The file's connection in this thread: reads, the prune, an account's rows forgotten. */
  async db(): Promise<Kysely<DB>> {
    return (await this.#open()).db;
  }

  /** Inserts the rows from the writing thread (started once the file is opened, again if it died); settles once they are committed. */
  async append(rows: readonly NewRequestLogRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.#open();
    if (!this.#writer || this.#writer.failed) this.#writer = new Writer(this.#file);
    await this.#writer.append(rows);
  }

  async close(): Promise<void> {
    const [opened, writer] = [this.#opened, this.#writer];
    this.#opened = undefined;
    this.#writer = undefined;
    await writer?.stop();
    if (opened) await (await opened).close();
  }
}
