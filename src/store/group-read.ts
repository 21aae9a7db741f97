// Group read: lookups by key that arrive together (many requests parsed in one turn of the event
// loop) are asked of the database as one query. On PostgreSQL every query is a round trip to
// another process, and measured, a charge intent's lookup of its subscription cost more than the
// write of its rows (which group commit shares). Each lookup is still asked after it arrived, so
// it sees every commit made before.

/** Reads the rows of these keys (each once); keys without a row are left out. */
export type BatchReader<K, V> = (keys: K[]) => Promise<Map<K, V>>;

interface Waiting<V> {
  resolve(value: V | undefined): void;
  reject(error: unknown): void;
}

export class GroupRead<K, V> {
  #waiting = new Map<K, Waiting<V>[]>();
  #scheduled = false;

  constructor(private readonly read: BatchReader<K, V>) {}

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.#waiting.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.#waiting.set(key, [{ resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#waiting;
    this.#waiting = new Map();
    this.#scheduled = false;
    let found: Map<K, V>;
    try {
      found = await this.read([...batch.keys()]);
    } catch (error) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
      return;
    }
    for (const [key, waiting] of batch) for (const w of waiting) w.resolve(found.get(key));
  }
}
