// Moves SQLite's WAL checkpoints off the request path. With the default automatic checkpoint,
// the commit that crosses 1,000 WAL pages copies them into the database file itself, on the main
// thread, while every other request waits: measured, it costs a fifth of the create throughput
// and doubles p99. A long-running process instead checkpoints from a thread of its own, with its
// own connection, every CHECKPOINT_EVERY_MS; PASSIVE never waits for (or blocks) readers and
// writers, and the writer resets the WAL once a checkpoint has copied all of it.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const CHECKPOINT_EVERY_MS = 100;

// CommonJS evaluated by the worker: it needs only better-sqlite3, resolved from this package.
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
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, everyMs: CHECKPOINT_EVERY_MS } });
  // Once the thread has failed or is being stopped, nothing more is reported.
  let settled = false;
  const fail = (error: Error) => {
    if (settled) return;
    settled = true;
    onFailure(error);
  };
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('error', fail);
  worker.once('exit', (code) => fail(new Error(`the WAL checkpoint thread exited with code ${code}`)));
  worker.unref();
  return {
    stop: async () => {
      settled = true;
      worker.postMessage('stop');
      await exited;
    },
  };
}
