// A thread with a SQLite connection of its own, for work kept off the event loop (the WAL's
// checkpoints, wal-checkpointer.ts; the request log's inserts, request-log-file.ts). Its source is
// CommonJS evaluated by the thread, which finds better-sqlite3 at `workerData.driver`, resolved from
// this package, and ends at the message 'stop'.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface SqliteThread {
  readonly worker: Worker;
  /** Settles with the thread's exit code once it has ended, for whatever reason. */
  readonly exited: Promise<number>;
  /** Asks the thread to end and waits until it has. */
  stop(): Promise<void>;
}

export function startSqliteThread(source: string, data: Record<string, unknown>): SqliteThread {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(source, { eval: true, workerData: { ...data, driver } });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  // A process with nothing else to do does not stay up for such a thread.
  worker.unref();
  return {
    worker,
    exited,
    stop: async () => {
      // Waited for, the thread must keep the process alive until it exits: a process that stops
      // right after it started would otherwise end with the wait unsettled.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
