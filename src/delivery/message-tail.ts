// What `quipu listen` follows: the messages written and the attempts logged since it started, read
// from the database by polling, so it works beside any number of servers and workers on either
// database. Reading "everything after the last key seen" would miss rows whose transaction commits
// after a row with a later key was read (PostgreSQL takes sequence values before commit, and
// several processes write), so every poll looks back LOOK_BACK_MS, and what was reported within
// that window is remembered so nothing is reported twice:
// - messages by their created_at (the developer clock of the process that wrote them): every poll
//   reads the ids created since the developer clock as this process read it LOOK_BACK_MS ago (wall
//   time), so a moved developer clock does not make the window jump past writers that have not
//   seen the move yet; ids created since then that were reported are kept.
// - attempts by their id, as store/id-tail.ts follows any table by its id.
// A message is missed only if it becomes visible more than LOOK_BACK_MS after its stamp: its
// transaction's commit delay plus the time a writer takes to see a moved developer clock
// (INVALIDATION_POLL_MS) and the wall clocks' skew between machines. What is remembered: the ids of
// the messages created within the window, and one developer-clock reading per poll of the window.
import type { Kysely } from 'kysely';
import type { ShiftableClock } from '../runtime/clock.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { IdTail, LOOK_BACK_MS } from '../store/id-tail.js';
import { type AttemptOfMessage, findMessageRows, lastAttemptId, listAttemptsAfter, listMessageStamps } from '../store/messages.js';
import type { DB, MessageRow } from '../store/schema.js';

export interface TailFilter {
  receiverId?: number;
  kinds?: readonly string[];
}

export interface TailBatch {
  /** Oldest first. */
  messages: MessageRow[];
  /** In the order they were logged. */
  attempts: AttemptOfMessage[];
}

interface Reading {
  wall: number;
  developer: number;
}

export class MessageTail {
  /** The messages of the window already reported (or there at the start), with their created_at. */
  readonly #seen = new Map<string, number>();
  readonly #readings: Reading[] = [];
  #floor = Number.NEGATIVE_INFINITY;
  readonly #attempts: IdTail<AttemptOfMessage>;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: ShiftableClock,
    private readonly filter: TailFilter = {},
  ) {
    this.#attempts = new IdTail(
      { last: () => lastAttemptId(db), after: (afterId, ids, limit) => listAttemptsAfter(db, afterId, ids, limit), id: (row) => row.attempt_id },
      (row) => this.#matches(row),
    );
  }

  /** Takes note of what is there already: the polls report only what appears after this. */
  async start(): Promise<void> {
    const now = this.#reading();
    await this.#attempts.start(now.wall);
    await this.#newMessages(now);
  }

  async poll(): Promise<TailBatch> {
    const now = this.#reading();
    // Attempts first: the messages of every attempt read are then committed, and read next.
    const attempts = await this.#attempts.poll(now.wall);
    const messages = await this.#newMessages(now);
    return { messages, attempts };
  }

  #reading(): Reading {
    return { wall: wallClockMs(this.clock), developer: this.clock.now().getTime() };
  }

  #matches(row: { receiver_id: number; kind: string }): boolean {
    return (
      (this.filter.receiverId === undefined || row.receiver_id === this.filter.receiverId) &&
      (this.filter.kinds === undefined || this.filter.kinds.includes(row.kind))
    );
  }

  async #newMessages(now: Reading): Promise<MessageRow[]> {
    const floor = this.#windowFloor(now);
    for (const [id, createdAt] of this.#seen) if (createdAt < floor) this.#seen.delete(id);
    const fresh = (await listMessageStamps(this.db, floor, this.filter)).filter((s) => !this.#seen.has(s.message_id));
    for (const s of fresh) this.#seen.set(s.message_id, s.created_at);
    const rows = await findMessageRows(
      this.db,
      fresh.map((s) => s.message_id),
    );
    return rows.sort((a, b) => a.created_at - b.created_at || (a.message_id < b.message_id ? -1 : 1));
  }

  /** The developer clock as it read LOOK_BACK_MS ago; before the first reading, as if it had not moved. */
  #windowFloor(now: Reading): number {
    this.#readings.push(now);
    const then = now.wall - LOOK_BACK_MS;
    while (this.#readings.length > 1 && this.#readings[1]!.wall <= then) this.#readings.shift();
    const first = this.#readings[0]!;
    this.#floor = Math.max(this.#floor, first.developer - Math.max(0, first.wall - then));
    return this.#floor;
  }
}
