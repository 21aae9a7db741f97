// Keeps every process's caches and clock in step with the shared database: a change another
// process cached is appended to the invalidation feed, and each process reads the feed (and the
// developer clock) every INVALIDATION_POLL_MS. Reads start at a fixed rate, so a change committed
// anywhere is applied everywhere within INVALIDATION_POLL_MS plus the time of one read.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { appendInvalidation, invalidationsSince, pruneInvalidations } from '../store/invalidations.js';
import type { DB } from '../store/schema.js';
import { readSettings } from '../store/settings.js';
import { inTransaction } from '../store/transaction.js';
import { CLOCK_EPOCH_SETTING, CLOCK_OFFSET_SETTING, type ShiftableClock } from './clock.js';

type Listener = (item: string) => void;

/** Records a change for every process, in the transaction it was given to. */
export type Publish = (topic: string, item: string) => Promise<void>;

/** Rows are read again for this long: on PostgreSQL ids are not committed in order, so a window by time catches late commits. */
const WINDOW_MS = 10_000;
const RETENTION_MS = 24 * 3_600_000;

export class InvalidationFeed {
  readonly #listeners = new Map<string, Listener[]>();
  readonly #seen = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;
  #lastPrune = 0;
  #polling: Promise<void> | undefined;
  /** When the last successful read of the feed began; first the start, when the caches are empty. */
  #readAt = Date.now();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: ShiftableClock,
    private readonly pollMs: number,
    private readonly log: Logger,
  ) {}

  on(topic: string, listener: Listener): void {
    this.#listeners.set(topic, [...(this.#listeners.get(topic) ?? []), listener]);
  }

  /** Records a change already made outside any transaction, and applies it here at once. */
  async publish(db: Kysely<DB>, topic: string, item: string): Promise<void> {
    await appendInvalidation(db, topic, item, Date.now());
    this.#dispatch(topic, item);
  }

  /**
   * Runs `work` in a transaction; what it publishes is applied here once the transaction has
   * committed, never before: a failed commit leaves this process's caches as the database is, and
   * a value cached again meanwhile by a request on another connection (which still read the old
   * one) is evicted. Inside a caller's transaction the commit is the caller's, so the change is
   * applied here by the next read of the feed, which takes this process's own rows too.
   */
  async transaction<T>(db: Kysely<DB>, work: (trx: Kysely<DB>, publish: Publish) => Promise<T>): Promise<T> {
    const published: [topic: string, item: string][] = [];
    const result = await inTransaction(db, (trx) =>
      work(trx, async (topic, item) => {
        await appendInvalidation(trx, topic, item, Date.now());
        published.push([topic, item]);
      }),
    );
    if (!db.isTransaction) for (const [topic, item] of published) this.#dispatch(topic, item);
    return result;
  }

  #dispatch(topic: string, item: string): void {
    for (const listener of this.#listeners.get(topic) ?? []) listener(item);
  }

  async poll(): Promise<void> {
    const now = Date.now();
    // From the last successful read rather than from now: when reads failed for longer than the
    // window (a database outage), the changes made meanwhile are still applied once it is back.
    // A wall clock set back must not move the start past rows not read yet, hence the min.
    const rows = await invalidationsSince(this.db, Math.min(this.#readAt, now) - WINDOW_MS);
    for (const row of rows) {
      if (this.#seen.has(row.id)) continue;
      this.#seen.set(row.id, now);
      this.#dispatch(row.topic, row.item);
    }
    this.#readAt = now;
    // The next read starts one window before now, and a row is seen only after it was written, so
    // an id seen two windows ago cannot come back (the window's own allowance for clock skew).
    for (const [id, at] of this.#seen) if (at < now - 2 * WINDOW_MS) this.#seen.delete(id);
    const clock = await readSettings(this.db, [CLOCK_OFFSET_SETTING, CLOCK_EPOCH_SETTING]);
    const offset = clock.get(CLOCK_OFFSET_SETTING);
    if (offset !== undefined) this.clock.setOffset(Number(offset), Number(clock.get(CLOCK_EPOCH_SETTING) ?? 0));
    if (now - this.#lastPrune > 3_600_000) {
      this.#lastPrune = now;
      await pruneInvalidations(this.db, now - RETENTION_MS);
    }
  }

  start(): void {
    const tick = async () => {
      const started = Date.now();
      try {
        await this.poll();
      } catch (error) {
        this.log.error({ err: error }, 'reading the invalidation feed failed');
      }
      // Fixed rate: the next read starts pollMs after this one started (at once if this one took
      // longer), so the time a read takes is not added to the interval. Reads never overlap.
      const wait = Math.max(0, started + this.pollMs - Date.now());
      if (this.#timer) this.#timer = setTimeout(run, wait).unref();
    };
    const run = () => {
      this.#polling = tick();
    };
    this.#timer = setTimeout(run, this.pollMs).unref();
  }

  /** Stops polling; resolves once a poll in progress is over, so the database may be closed. */
  async stop(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#polling;
  }
}
