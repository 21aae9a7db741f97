// Failures of the storage itself, told apart from a request's own faults: a SQLite disk that is
// full or failing, a PostgreSQL that is full, stopped, restarting, unreachable or failing over to
// its standby. A request that meets one is answered 503 with Retry-After (it may work later, and
// changed nothing: its transaction did not commit), the log says what happened, and /readyz answers
// 503 until a write goes through again, so a load balancer sends traffic elsewhere.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { perDatabase } from './per-database.js';
import type { DB } from './schema.js';

export type StorageFailure = 'disk full' | 'database unavailable';

/** PostgreSQL's SQLSTATE classes and codes that say the database, not the statement, failed. */
const PG_DISK_FULL = '53100';
const PG_UNAVAILABLE = /^(08|57P0|53)/;
/**
 * read_only_sql_transaction: Quipu never opens a read-only transaction, so this is a server that
 * stopped taking writes under an open connection (a primary fenced read-only, or demoted, during a
 * failover to its standby): the primary is elsewhere now (primary-locator.ts).
 */
const PG_READ_ONLY = '25006';
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** pg's own words when a connection ends or cannot be had (it gives them no code). */
const PG_CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|is not currently accepting connections/i;

export function storageFailureOf(error: unknown): StorageFailure | undefined {
  const { code, message, errors } = (error ?? {}) as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (code === 'SQLITE_FULL' || code === PG_DISK_FULL) return 'disk full';
    // SQLITE_BUSY: another process has held the database locked past the busy timeout.
    if (
      code.startsWith('SQLITE_IOERR') ||
      code.startsWith('SQLITE_BUSY') ||
      code === 'SQLITE_CANTOPEN' ||
      code.startsWith('SQLITE_READONLY') ||
      code === 'SQLITE_CORRUPT'
    )
      return 'database unavailable';
    if (PG_UNAVAILABLE.test(code) || code === PG_READ_ONLY || NETWORK_CODES.has(code)) return 'database unavailable';
  }
  if (typeof message === 'string' && PG_CONNECTION_MESSAGES.test(message)) return 'database unavailable';
  // Connecting to a host with several addresses fails with one error for each.
  if (Array.isArray(errors)) return errors.map(storageFailureOf).find((failure) => failure !== undefined);
  return undefined;
}

const PROBE = 'readiness-probe';
const PROBE_BYTES = 256 * 1024;

/** How long after a storage failure readiness checks with a write instead of a read. */
const SUSPECT_MS = 60_000;
const lastFailures = perDatabase((_db: Kysely<DB>) => ({ at: Number.NEGATIVE_INFINITY }));

export function noteStorageFailure(db: Kysely<DB>, at: number): void {
  lastFailures(db).at = at;
}

/**
 * Whether the database takes transactions: a read, or after a recent storage failure a write (a
 * full disk still answers reads), which clears the suspicion once it goes through.
 */
export async function storageReady(db: Kysely<DB>, now: number): Promise<void> {
  const last = lastFailures(db);
  const suspect = now - last.at < SUSPECT_MS;
  await db.transaction().execute(async (trx) => {
    // A transaction, not a bare `select 1`: on SQLite that never touches the file, while a
    // transaction takes the write lock every payment needs, so a database file another process
    // keeps locked is reported, as PostgreSQL refusing connections is.
    if (!suspect) return sql`select 1`.execute(trx);
    // As large as a sizeable payment, and gone again: a write that fits in pages already there
    // would pass while the disk has no room for a request's.
    await trx
      .insertInto('settings')
      .values({ name: PROBE, value: 'x'.repeat(PROBE_BYTES) })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: 'x'.repeat(PROBE_BYTES) }))
      .execute();
    await trx.deleteFrom('settings').where('name', '=', PROBE).execute();
  });
  last.at = Number.NEGATIVE_INFINITY;
}
