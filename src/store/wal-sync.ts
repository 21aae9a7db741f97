// Durable acknowledgements on SQLite without a disk flush inside every commit. With
// `synchronous = FULL`, SQLite flushes the WAL inside each commit, on the one thread that serves
// every request: measured, that costs a quarter of the create throughput. Long-running processes
// instead commit with `NORMAL` (the WAL is written, not flushed) and, before a write is
// acknowledged, flush the WAL file with fdatasync from libuv's thread pool: the event loop goes on
// serving, and one flush covers every commit made before it started, however many there were.
// SQLite keeps its own guarantees meanwhile: in WAL mode with NORMAL the WAL is flushed before each
// checkpoint copies it, so a commit is on disk once either has happened.
import fs from 'node:fs/promises';

interface Flush {
  /** The commits it covers: those counted before it started. */
  covers: number;
  done: Promise<void>;
}

export class WalSync {
  #committed = 0;
  #flushed = 0;
  #running: Flush | undefined;
  #queued: Promise<void> | undefined;
  #file: Promise<fs.FileHandle> | undefined;

  constructor(private readonly walFile: string) {}

  /** A transaction (or a statement outside one) that wrote has committed on this connection. */
  committed(): void {
    this.#committed++;
  }

  /** Undefined when every commit so far is on disk; otherwise a promise that resolves once they are. */
  pending(): Promise<void> | undefined {
    const target = this.#committed;
    if (this.#flushed >= target) return undefined;
    if (!this.#running) return this.#start().done;
    if (this.#running.covers >= target) return this.#running.done;
    // The running flush started before these commits: one more runs after it, shared by everyone
    // who waits meanwhile.
    this.#queued ??= this.#running.done.then(
      () => this.#startQueued(),
      () => this.#startQueued(),
    );
    return this.#queued;
  }

  /** The flush running now, if any; it settles, never rejects, once it has ended. */
  underWay(): Promise<void> | undefined {
    return this.#running?.done.catch(() => undefined);
  }

  async close(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await this.#running?.done.catch(() => undefined);
    await (await file?.catch(() => undefined))?.close();
  }

  #startQueued(): Promise<void> {
    this.#queued = undefined;
    return this.#start().done;
  }

  #start(): Flush {
    const covers = this.#committed;
    const done = this.#flush().then(
      () => {
        this.#flushed = Math.max(this.#flushed, covers);
        this.#running = undefined;
      },
      (error: unknown) => {
        this.#running = undefined;
        throw error;
      },
    );
    this.#running = { covers, done };
    return this.#running;
  }

  async #flush(): Promise<void> {
    // The WAL file exists from the first commit on and stays while this process's connection is
    // open (SQLite removes it with the last connection), so one handle serves for good.
    this.#file ??= fs.open(this.walFile, 'r');
    const file = this.#file;
    try {
      await (await file).datasync();
    } catch (error) {
      if (this.#file === file) this.#file = undefined;
      throw error;
    }
  }
}
