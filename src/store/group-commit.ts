// Group commit: writes that arrive together (many requests parsed in one turn of the event loop,
// or, on SQLite, while the WAL is being flushed) are handed to the database as one batch, one
// commit, and each caller goes on only once that batch has committed (its answer then waits for
// the commit to be on disk, like any other: see src/store/wal-sync.ts). Per write, the batch
// reports the error that write alone met, so a failing write fails alone.
import type { Kysely } from 'kysely';
import { storageFailureOf } from './storage-failure.js';
import { dialectOf, flushUnderWay } from './database.js';
import type { DB } from './schema.js';

interface Pending<T> {
  item: T;
  resolve(): void;
  reject(error: unknown): void;
}

/** Writes a batch; returns, per item, the error it met or undefined. */
export type BatchWriter<T> = (items: T[]) => Promise<unknown[]>;

export class GroupCommit<T> {
  #queue: Pending<T>[] = [];
  #scheduled = false;

  constructor(
    private readonly write: BatchWriter<T>,
    /** What a batch waits for before it is taken (flushUnderWay: the WAL flush running, if any). */
    private readonly ready: () => Promise<void> | undefined = () => undefined,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  // Batches are not serialised here: on PostgreSQL several run at once on the pool; on SQLite the
  // single connection queues them.
  async #flush(): Promise<void> {
    // While the WAL is being flushed, a commit would wait for the next flush anyway: the batch
    // waits for this one to end instead, and what arrives meanwhile joins it (fewer, larger commits).
    const ready = this.ready();
    if (ready) await ready;
    const batch = this.#queue;
    this.#queue = [];
    this.#scheduled = false;
    let errors: unknown[];
    try {
      errors = await this.write(batch.map((p) => p.item));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => (errors[i] === undefined ? pending.resolve() : pending.reject(errors[i])));
  }
}

// PostgreSQL binds at most 65535 values per statement; a hundred rows of the widest table
// (payments, 47 columns) stay well below.
const PER_STATEMENT = 100;

/** A batch's rows (or keys) in chunks small enough for one statement each on PostgreSQL, or of `size`. */
export function inChunks<T>(items: readonly T[], size = PER_STATEMENT): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** Each row inserted alone, reporting its own error. */
async function insertEach<R>(db: Kysely<DB>, rows: R[], insertOne: (db: Kysely<DB>, row: R) => Promise<unknown>): Promise<unknown[]> {
  const errors: unknown[] = [];
  for (const row of rows)
    errors.push(
      await insertOne(db, row).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
  return errors;
}

/**
 * Group commit of the inserts into one table. SQLite: one transaction, one WAL append, for the
 * whole batch (a failing insert aborts only its statement). PostgreSQL: one multi-row insert per
 * chunk, one round trip; if it fails, its rows are retried one by one so that only the offending
 * row fails.
 */
export function groupedInserts<R>(db: Kysely<DB>, table: keyof DB & string, insertOne: (db: Kysely<DB>, row: R) => Promise<unknown>): GroupCommit<R> {
  if (dialectOf(db) === 'sqlite') {
    return new GroupCommit(
      (rows: R[]) =>
        db.transaction().execute(async (trx) => {
          const errors = await insertEach(trx, rows, insertOne);
          // A full disk or an I/O error rolls SQLite's whole transaction back: the batch fails with it.
          const fatal = errors.find((error) => storageFailureOf(error) !== undefined);
          if (fatal !== undefined) throw fatal;
          return errors;
        }),
      () => flushUnderWay(db),
    );
  }
  return new GroupCommit(async (rows: R[]) => {
    const results = await Promise.all(
      inChunks(rows).map((chunk) =>
        db
          .insertInto(table)
          .values(chunk as never)
          .execute()
          .then(
            () => chunk.map(() => undefined) as unknown[],
            () => insertEach(db, chunk, insertOne),
          ),
      ),
    );
    return results.flat();
  });
}
