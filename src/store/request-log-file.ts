// The request log's own SQLite file in DATA_DIR (REQUEST_LOG_STORE=file, developer mode's default).
// It shares no commit, WAL or change mark with the API's database, whichever that is: writing the
// log five times a second never makes an answer wait for a WAL flush (wal-sync.ts), never adds to
// the API database's checkpoints, and never sends every cached payment to be read again
// (database.ts, changeMark). synchronous=NORMAL: in WAL mode no commit waits for the disk, only a
// checkpoint does; the file survives its process crashing, and a power loss costs at most its last
// commits, never the file. OFF would spare those checkpoints' flushes too, but a power loss could
// then corrupt the file, and a broken file takes the dashboard's page and `quipu listen` with it.
// Opened with the first row written or read, so that a command that does neither never creates it.
import path from 'node:path';
import type { Kysely, Migration } from 'kysely';
import { type Database, openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import * as requestLogs from './migrations/030-request-logs.js';
import type { DB } from './schema.js';

export const REQUEST_LOG_FILE = 'request-log.db';

/** The file's own migrations: the API database's table of migration 030, and whatever later changes it. */
const MIGRATIONS: Readonly<Record<string, Migration>> = { '030-request-logs': requestLogs };

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

  constructor(private readonly dataDir: string) {}

  /** The file, opened and its table made on first use; a failed open is tried again at the next. */
  db(): Promise<Kysely<DB>> {
    this.#opened ??= open(path.join(this.dataDir, REQUEST_LOG_FILE)).catch((error: unknown) => {
      this.#opened = undefined;
      throw error;
    });
    return this.#opened.then((database) => database.db);
  }

  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = undefined;
    if (opened) await opened.then((database) => database.close());
  }
}
