// Opens the database of a process (and the request log's own file, request-log-file.ts): SQLite
// (embedded, the default) or PostgreSQL, behind the same Kysely interface so every query has one code path.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
  sql,
} from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import { postgresTarget } from './postgres-hosts.js';
import type { DB } from './schema.js';
import { startWalCheckpointer, WAL_SIZE_LIMIT_BYTES, type WalCheckpointer, WalRestarter } from './wal-checkpointer.js';
import { WalIndexHeader } from './wal-index-header.js';
import { WalSync } from './wal-sync.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  sqliteSynchronous?: 'normal' | 'full';
  /** PostgreSQL: the pool's size, its connections' lifetime, and the file their credentials are read from (postgres-pool.ts). */
  poolSize?: number;
  maxLifetimeSeconds?: number;
  credentialsFile?: string;
  /** SQLite: checkpoint the WAL from a thread of its own (long-running processes; see wal-checkpointer.ts). */
  walCheckpointer?: boolean;
  /** Connection troubles the database recovers from by itself, for the log. */
  log?: Logger;
}

type Row = Record<string, unknown>;

/**
 * A statement as Kysely uses it, prepared once. Rows are read as arrays and built by a function
 * compiled for the statement's columns: better-sqlite3's own row objects cost more than the query
 * for wide tables (10 µs for a payment), a literal built by generated code costs almost nothing.
 */
class CachedStatement implements SqliteStatement {
  readonly reader: boolean;
  /** It may change the database (SQLite's sqlite3_stmt_readonly says no): BEGIN and COMMIT do not. */
  readonly #writes: boolean;
  readonly #rows: BetterSqlite3.Statement | undefined;
  readonly #makeRow: ((values: unknown[]) => Row) | undefined;

  constructor(
    private readonly stmt: BetterSqlite3.Statement,
    private readonly connection: StatementCache,
  ) {
    this.reader = stmt.reader;
    this.#writes = !stmt.readonly;
    if (stmt.reader) {
      const names = stmt.columns().map((c) => c.name);
      // Duplicate names (joins) keep better-sqlite3's own rule: the last column wins, as in a literal.
      this.#makeRow = new Function('v', `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`) as (values: unknown[]) => Row;
      this.#rows = stmt.raw(true);
    }
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    if (this.#writes) this.connection.wrote();
    try {
      return (this.#rows!.all(...parameters) as unknown[][]).map(this.#makeRow!);
    } finally {
      if (this.connection.uncommitted) this.connection.settle();
    }
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    if (this.#writes) this.connection.wrote();
    try {
      return this.stmt.run(...parameters);
    } finally {
      // COMMIT itself writes nothing: the end of a transaction that wrote is looked for after every statement.
      if (this.connection.uncommitted) this.connection.settle();
    }
  }

  *iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    if (this.#writes) this.connection.wrote();
    const end = this.connection.reading();
    try {
      for (const values of this.#rows!.iterate(...parameters) as IterableIterator<unknown[]>) yield this.#makeRow!(values);
    } finally {
      end();
      if (this.connection.uncommitted) this.connection.settle();
    }
  }
}

const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * Prepared statements are reused: Kysely prepares on every query, which costs more than the query.
 * It also keeps the connection's change mark (see `changeMark`) and counts its commits for the
 * WAL flush that makes them durable (see `durable`).
 */
class StatementCache implements SqliteDatabase {
  readonly #statements = new Map<string, CachedStatement>();
  #changes = 0;
  #openCursors = 0;
  /** A statement that may write ran since the last commit. */
  uncommitted = false;

  constructor(
    readonly raw: BetterSqlite3.Database,
    readonly walSync: WalSync | undefined,
    private readonly walRestarter: WalRestarter | undefined,
    /** Undefined for an in-memory database, which no other connection can change. */
    private readonly walIndex: WalIndexHeader | undefined,
  ) {}

  prepare(sql: string): SqliteStatement {
    // A schema change can reorder the columns of `select *` (a table rebuilt, a view in place of a
    // table), which the cached statements' row builders were compiled for: they are prepared again.
    if (SCHEMA_CHANGE.test(sql)) {
      this.#statements.clear();
      return new CachedStatement(this.raw.prepare(sql), this);
    }
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      if (this.#statements.size >= 1000) this.#statements.clear();
      stmt = new CachedStatement(this.raw.prepare(sql), this);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /** A statement that may write runs on this connection (counted before it runs, committed or not). */
  wrote(): void {
    this.#changes++;
    this.uncommitted = true;
  }

  /** After a statement: outside a transaction now, what was written is committed (or rolled back: one flush too many is harmless). */
  settle(): void {
    if (this.raw.inTransaction) return;
    this.uncommitted = false;
    this.walSync?.committed();
    this.walRestarter?.committed();
  }

  /** A cursor stays open until the returned function is called; the connection runs nothing else meanwhile. */
  reading(): () => void {
    this.#openCursors++;
    return () => this.#openCursors--;
  }

  changeMark(): number | undefined {
    if (this.raw.inTransaction || this.#openCursors > 0) return undefined;
    if (this.walIndex?.changed()) this.#changes++;
    return this.#changes;
  }

  close(): void {
    this.walIndex?.close();
    this.raw.close();
  }
}

const connections = new WeakMap<Kysely<DB>, StatementCache>();

/**
 * SQLite: a number that is the same on two calls only if no commit can have changed the database
 * in between, whoever made it: it moves with every change of the WAL-index header, which every
 * commit of any connection rewrites (see wal-index-header.ts), and with every statement of this
 * connection that may write (an in-memory database has no header). Undefined for PostgreSQL, for a
 * transaction's handle, and while a transaction or a cursor is open on the connection: what it
 * reads then may be uncommitted, or older than the header.
 */
export function changeMark(db: Kysely<DB>): number | undefined {
  return connections.get(db)?.changeMark();
}

const turnMarks = new WeakMap<Kysely<DB>, Promise<number | undefined>>();

/**
 * `changeMark`, taken once at the end of the current turn of the event loop (its check phase) and
 * shared by every caller of the turn: by then every request that asks in this turn has been
 * received, so a commit that finished before any of them was sent is in it. A look at the
 * WAL-index header is a system call; a turn answers a score of requests under load.
 */
export function turnMark(db: Kysely<DB>): Promise<number | undefined> {
  let mark = turnMarks.get(db);
  if (!mark) {
    mark = new Promise((resolve) =>
      setImmediate(() => {
        turnMarks.delete(db);
        resolve(changeMark(db));
      }),
    );
    turnMarks.set(db, mark);
  }
  return mark;
}

/**
 * Undefined when every commit made so far is durable; otherwise a promise that resolves once it is
 * (SQLite in a long-running process with SQLITE_SYNCHRONOUS=full: see wal-sync.ts). Whatever is
 * acknowledged waits for it. PostgreSQL commits durably by itself.
 */
export function durable(db: Kysely<DB>): Promise<void> | undefined {
  return connections.get(db)?.walSync?.pending();
}

/**
 * Settles when the flush of the WAL under way, if any, has ended. A commit made meanwhile would
 * wait for the next flush all the same: a batch that waits here and commits then lets the writes
 * that arrive meanwhile join it (group-commit.ts), and that next flush covers them all.
 */
export function flushUnderWay(db: Kysely<DB>): Promise<void> | undefined {
  return connections.get(db)?.walSync?.underWay();
}

/** A process's connections to its database at this moment (/metrics). */
export interface ConnectionUse {
  /** The most it opens: DB_POOL_SIZE on PostgreSQL, SQLite's one. */
  size: number;
  /** Held by a query or a transaction. */
  inUse: number;
  /** Queries and transactions of this process waiting for a connection. */
  waiting: number;
}

const connectionUses = new WeakMap<Kysely<DB>, () => ConnectionUse>();

export function connectionUse(db: Kysely<DB>): ConnectionUse | undefined {
  return connectionUses.get(db)?.();
}

/** `BEGIN IMMEDIATE` takes the write lock up front, so a transaction that reads and then writes never fails halfway when another process writes. */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly use: { inUse: number; waiting: number },
  ) {
    super(config);
  }

  /** The one connection is handed out a query or transaction at a time (Kysely's mutex): the wait for it is counted. */
  override async acquireConnection(): Promise<DatabaseConnection> {
    this.use.waiting++;
    const connection = await super.acquireConnection();
    this.use.waiting--;
    this.use.inUse++;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.use.inUse--;
    await super.releaseConnection();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * After some errors (a full disk, an I/O error) SQLite has already rolled the transaction back,
   * and ROLLBACK fails with "no transaction is active": that error would replace the one that
   * says what happened, since Kysely throws what its rollback throws.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      if (!/no transaction is active/.test((error as Error).message)) throw error;
    }
  }
}

/**
 * Kysely runs SQLite migrations outside a transaction and without a lock, so a server and a worker
 * starting together on a new database both ran them ("table already exists"). SQLite's DDL is
 * transactional: in one `BEGIN IMMEDIATE` transaction the migrations hold the write lock, the
 * other process waits and then finds them applied, and a failed migration leaves nothing behind.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class QuipuSqliteDialect extends SqliteDialect {
  readonly use = { inUse: 0, waiting: 0 };

  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.config, this.use);
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
/** How long a statement waits for another process's lock before it fails. */
const BUSY_TIMEOUT_MS = 5_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * A new database file is switched to WAL once, by whichever process gets there first; another one
 * opening it at that moment gets SQLITE_BUSY at once, without SQLite's busy wait (seen with four
 * processes started together), so it tries again for as long as a busy wait would last.
 */
function enterWalMode(raw: BetterSqlite3.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      raw.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      // Only at start: the thread has nothing else to do meanwhile.
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

function openSqlite(file: string, options: DatabaseOptions): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const raw = new BetterSqlite3(file);
  enterWalMode(raw);
  const longRunning = options.walCheckpointer === true && file !== ':memory:';
  // Durable commits: flushed off the event loop in a long-running process, by SQLite itself in a
  // one-shot command, where a flush inside each commit costs nothing that matters.
  const walSync = options.sqliteSynchronous === 'full' && longRunning ? new WalSync(`${path.resolve(file)}-wal`) : undefined;
  raw.pragma(`synchronous = ${options.sqliteSynchronous === 'full' && !walSync ? 'FULL' : 'NORMAL'}`);
  raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  raw.pragma('foreign_keys = ON');
  const checkpointer = longRunning ? startCheckpointer(raw, file, options.log) : undefined;
  const statements = new StatementCache(
    raw,
    walSync,
    checkpointer && new WalRestarter(raw, `${path.resolve(file)}-wal`),
    file === ':memory:' ? undefined : new WalIndexHeader(`${path.resolve(file)}-shm`),
  );
  const dialect = new QuipuSqliteDialect({ database: statements });
  const db = new Kysely<DB>({ dialect });
  connections.set(db, statements);
  connectionUses.set(db, () => ({ size: 1, ...dialect.use }));
  return {
    db,
    dialect: 'sqlite',
    close: async () => {
      await checkpointer?.stop();
      await walSync?.close();
      await db.destroy();
    },
  };
}

/** Hands checkpoints to a thread; should it fail, the connection checkpoints by itself again. */
function startCheckpointer(raw: BetterSqlite3.Database, file: string, log: Logger | undefined): WalCheckpointer {
  raw.pragma('wal_autocheckpoint = 0');
  // The WAL file keeps its largest size when it starts over; past this it is truncated back to it.
  raw.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  return startWalCheckpointer(path.resolve(file), (error) => {
    log?.error({ err: error }, 'the WAL checkpoint thread failed; checkpoints run on commit again');
    if (raw.open) raw.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
  });
}

/** Kysely's own key (its postgres-adapter.js), so that a process connected directly and one through the pooler exclude each other. */
const MIGRATION_LOCK_KEY = '3853314791062309107';

/**
 * Kysely's PostgreSQL migrations hold a session-level advisory lock from before their transaction
 * to after it: through a transaction pooler the unlock reaches another server connection, and the
 * lock stays held on the first one for as long as the pooler keeps it open. Here the transaction
 * starts with the lock instead, a transaction-level one that ends with it: the migrator's own BEGIN
 * then only draws PostgreSQL's warning that a transaction is already in progress.
 */
class TransactionPoolerAdapter extends PostgresAdapter {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema, as Kysely declares it
  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`begin`.execute(db);
    try {
      await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_KEY)}::bigint)`.execute(db);
    } catch (error) {
      await sql`rollback`.execute(db);
      throw error;
    }
  }

  override async releaseMigrationLock(): Promise<void> {}
}

class TransactionPoolerDialect extends PostgresDialect {
  override createAdapter(): PostgresAdapter {
    return new TransactionPoolerAdapter();
  }
}

/**
 * `?pooler=transaction` at the end of a PostgreSQL DATABASE_URL: it reaches PostgreSQL through a
 * pooler in transaction mode (PgBouncer's pool_mode=transaction). The parameter is Quipu's, not
 * PostgreSQL's: it is taken off the URL the connections use.
 */
function transactionPooler(url: string): { url: string; pooled: boolean } {
  const at = url.indexOf('?');
  const parameters = new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
  const pooler = parameters.get('pooler');
  if (pooler === null) return { url, pooled: false };
  if (pooler !== 'transaction') throw new Error(`DATABASE_URL: pooler must be "transaction" (a pooler in transaction mode) or absent, got "${pooler}"`);
  parameters.delete('pooler');
  const rest = parameters.toString();
  return { url: url.slice(0, at) + (rest ? `?${rest}` : ''), pooled: true };
}

function openPostgres(databaseUrl: string, options: DatabaseOptions): Database {
  const { url: oneOrMoreHosts, pooled } = transactionPooler(databaseUrl);
  // A malformed URL is refused here, when the database is opened; the pool, and pg with it, is
  // made with the first connection (postgres-pool.ts).
  const target = postgresTarget(oneOrMoreHosts);
  let pool: pg.Pool | undefined;
  const connect = async () => (pool = (await import('./postgres-pool.js')).postgresPool(target, pooled, options));
  const db = new Kysely<DB>({ dialect: pooled ? new TransactionPoolerDialect({ pool: connect }) : new PostgresDialect({ pool: connect }) });
  const size = options.poolSize ?? 10;
  connectionUses.set(db, () => ({ size, inUse: pool ? pool.totalCount - pool.idleCount : 0, waiting: pool?.waitingCount ?? 0 }));
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  throw new Error(`unsupported DATABASE_URL ${url}`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
