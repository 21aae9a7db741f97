// Moves SQLite's WAL checkpoints off the request path. With the default automatic checkpoint,
// the commit that crosses 1,000 WAL pages copies them into the database file itself, on the main
// thread, while every other request waits: measured, it costs a fifth of the create throughput
// and doubles p99. A long-running process instead checkpoints from a thread of its own, with its
// own connection, every CHECKPOINT_EVERY_MS; PASSIVE never waits for (or blocks) readers and
// writers, and the writer resets the WAL once a checkpoint has copied all of it (under a steady
// stream of commits that takes the WalRestarter below).
import fs from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { startSqliteThread } from './sqlite-thread.js';

const CHECKPOINT_EVERY_MS = 100;

// Evaluated by the thread (sqlite-thread.ts).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /** Ends the thread after its checkpoint in progress. */
  stop(): Promise<void>;
}

/**
 * Starts the checkpoint thread for the database `file`. `onFailure` is called once if the thread
 * dies: the caller turns automatic checkpoints back on, so the WAL never grows unbounded.
 */
export function startWalCheckpointer(file: string, onFailure: (error: Error) => void): WalCheckpointer {
  const thread = startSqliteThread(WORKER_SOURCE, { file, everyMs: CHECKPOINT_EVERY_MS });
  // Once the thread has failed or is being stopped, nothing more is reported.
  let settled = false;
  const fail = (error: Error) => {
    if (settled) return;
    settled = true;
    onFailure(error);
  };
  thread.worker.once('error', fail);
  void thread.exited.then((code) => fail(new Error(`the WAL checkpoint thread exited with code ${code}`)));
  return {
    stop: () => {
      settled = true;
      return thread.stop();
    },
  };
}

/** How many commits pass between two looks at the WAL's size. */
const COMMITS_BETWEEN_CHECKS = 256;
/**
 * The WAL's size once it starts over (SQLite's journal_size_limit truncates it to this then); past
 * it, it holds more than this many bytes of commits not yet started over.
 */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The thread's checkpoints never finish under a steady stream of commits: each copies the WAL up
 * to where it stood when it began, and by then more commits have been appended, so the WAL is
 * never all copied and never starts over. It grows without bound (measured: 500 MB in 10 s of
 * creates). So once the WAL passes WAL_SIZE_LIMIT_BYTES, the writing connection itself checkpoints
 * right after a commit: the thread has already copied nearly everything, what is left is the last
 * few commits, and with no commit in between this checkpoint finishes; the next commit starts the
 * WAL over, in place.
 */
export class WalRestarter {
  #commits = 0;

  constructor(
    private readonly raw: BetterSqlite3.Database,
    private readonly walFile: string,
    private readonly limits = { restartBytes: WAL_SIZE_LIMIT_BYTES, commitsBetweenChecks: COMMITS_BETWEEN_CHECKS },
  ) {}

  /** A transaction that wrote has just committed on the connection. */
  committed(): void {
    if (++this.#commits < this.limits.commitsBetweenChecks) return;
    this.#commits = 0;
    let size: number;
    try {
      size = fs.statSync(this.walFile).size;
    } catch {
      return;
    }
    if (size > this.limits.restartBytes) this.raw.pragma('wal_checkpoint(PASSIVE)');
  }
}
