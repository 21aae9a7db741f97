// What a key ring loads from the database, held per process: loaded once, loaded again when a
// rotation is published on the ring's topic (or after a load that failed), and its first key
// created on first use, once among the process's concurrent callers. The OAuth signing keys and
// the descriptor keys are both held this way.
import { LRUCache } from 'lru-cache';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';

/**
 * A kid a ring has not loaded is looked up in the database (a key created elsewhere, before the feed
 * says so); one that is not there is not looked up again for a second. The memory is per kid, so
 * made-up kids never delay the lookup of a real one, and bounded.
 */
export const unknownKidMemory = () => new LRUCache<string, true>({ max: 1000, ttl: 1000 });

export class ReloadedRing<T> {
  #loaded: Promise<T> | undefined;
  #creating: Promise<void> | undefined;

  constructor(
    feed: InvalidationFeed,
    topic: string,
    private readonly load: () => Promise<T>,
  ) {
    feed.on(topic, () => this.forget());
  }

  async get(): Promise<T> {
    const loading = (this.#loaded ??= this.load());
    try {
      return await loading;
    } catch (error) {
      if (this.#loaded === loading) this.#loaded = undefined;
      throw error;
    }
  }

  /** The next `get` loads again. */
  forget(): void {
    this.#loaded = undefined;
  }

  /** `pick` of what is loaded; when it is absent, `create` makes it (another process may have first) and the ring is loaded again. */
  async getOrCreate<K>(pick: (loaded: T) => K | undefined, create: () => Promise<void>, what: string): Promise<K> {
    const found = pick(await this.get());
    if (found) return found;
    this.#creating ??= create().finally(() => {
      this.#creating = undefined;
    });
    await this.#creating;
    this.forget();
    const reloaded = pick(await this.get());
    if (!reloaded) throw new Error(`no ${what} after creating one`);
    return reloaded;
  }
}
