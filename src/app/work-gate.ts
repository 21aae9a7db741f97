// A bound on costly work of one kind in one process: at most `running` at once, at most `waiting`
// queued behind them, and anything beyond refused at once instead of queued. Password hashing
// (scrypt, 32 MiB and tens of milliseconds each) runs on libuv's thread pool, which every answer's
// WAL flush needs too: unbounded, a flood of sign-ins held every answer of the server behind it.
// (p-queue has no bound on its queue, and its current version needs Node 22.)

export class WorkGate {
  #running = 0;
  readonly #queue: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** The work's result, or undefined when the gate is full and the work was not run. */
  async run<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (this.#running >= this.running) {
      if (this.#queue.length >= this.waiting) return undefined;
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else this.#running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = this.#queue.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
