// Keeps every process's caches and clock in step with the shared database: a change another
// process cached is appended to the invalidation feed, and each process reads the feed (and the
// developer clock) every INVALIDATION_POLL_MS.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { appendInvalidation, invalidationsSince, pruneInvalidations } from '../store/invalidations.js';
import type { DB } from '../store/schema.js';
import { readSetting } from '../store/settings.js';
import { CLOCK_OFFSET_SETTING, type ShiftableClock } from './clock.js';

type Listener = (item: string) => void;

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

  /** Records the change for the other processes (in the caller's transaction) and applies it here at once. */
  async publish(db: Kysely<DB>, topic: string, item: string): Promise<void> {
    await appendInvalidation(db, topic, item, Date.now());
    this.#dispatch(topic, item);
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
    const offset = await readSetting(this.db, CLOCK_OFFSET_SETTING);
    if (offset !== undefined) this.clock.setOffset(Number(offset));
    if (now - this.#lastPrune > 3_600_000) {
      this.#lastPrune = now;
      await pruneInvalidations(this.db, now - RETENTION_MS);
    }
  }

  start(): void {
    const tick = async () => {
      try {
        await this.poll();
      } catch (error) {
        this.log.error({ err: error }, 'reading the invalidation feed failed');
      }
      if (this.#timer) this.#timer = setTimeout(run, this.pollMs).unref();
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
