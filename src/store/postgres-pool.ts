// The connection pool of a PostgreSQL database (node-postgres). database.ts loads this module with
// the first connection, not before: loading pg costs about 45 ms, which a process on SQLite (every
// `quipu` command's start, by default) paid for nothing.
import pg from 'pg';
import type { Logger } from 'pino';
import type { PostgresTarget } from './postgres-hosts.js';
import { signingInFrom } from './postgres-credentials.js';
import { PrimaryLocator, primaryClient } from './primary-locator.js';
import { statementName } from './statement-names.js';

const INT8_OID = 20;

function int8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`integer ${value} is outside the exact range`);
  return n;
}

class NamingClient extends pg.Client {
  // pg's overloads do not let a subclass forward its arguments as they came.
  override query(...args: unknown[]): never {
    const [text, values, ...rest] = args;
    const name = typeof text === 'string' ? statementName(text) : undefined;
    const query = super.query as (...a: unknown[]) => never;
    return name ? query.call(this, { name, text, values }, ...rest) : query.apply(this, args);
  }
}

/**
 * Statements that leave something on the server connection after their transaction: a pooler in
 * transaction mode hands the connection to another client then, and this one's next transaction
 * to another connection, where the setting, lock, listener, statement, cursor or table is not.
 */
const SESSION_STATE =
  /^\s*((listen|unlisten|prepare|deallocate|reset)\b|set\s+(?!local\b|transaction\b|constraints\b)|create\s+(global\s+|local\s+)?temp(orary)?\s|declare\b[^;]*\bwith\s+hold\b)|\bpg_(try_)?advisory_(un)?lock(_shared|_all)?\s*\(|\bset_config\s*\([^)]*,\s*false\s*\)/i;

/** Behind a transaction pooler: unnamed statements only (pg's default), and no session state, refused before it is sent. */
class SessionlessClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [text] = args;
    const sqlText = typeof text === 'string' ? text : (text as { text?: unknown } | null)?.text;
    if (typeof sqlText === 'string' && SESSION_STATE.test(sqlText)) {
      throw new Error(
        `this statement keeps session state, which a transaction pooler (DATABASE_URL ?pooler=transaction) does not keep between transactions: ${sqlText.slice(0, 200)}`,
      );
    }
    return (super.query as (...a: unknown[]) => never).apply(this, args);
  }
}

export interface PoolOptions {
  poolSize?: number;
  /** DB_CONNECTION_MAX_LIFETIME_SECONDS (0: none). */
  maxLifetimeSeconds?: number;
  /** DATABASE_URL_FILE: read again for the user and password of each new connection (postgres-credentials.ts). */
  credentialsFile?: string;
  log?: Logger;
}

/** `pooled`: reached through a pooler in transaction mode (database.ts, `?pooler=transaction`). */
export function postgresPool({ url, hosts, readWrite }: PostgresTarget, pooled: boolean, options: PoolOptions): pg.Pool {
  const { credentialsFile: file, log } = options;
  const Base = pooled ? SessionlessClient : NamingClient;
  const Client = file ? signingInFrom(file, Base, log) : Base;
  const Probe = file ? signingInFrom(file, pg.Client, log) : pg.Client;
  const pool = new pg.Pool({
    // Several hosts (a primary and its standbys): connections go to whichever takes writes now.
    Client: readWrite ? primaryClient(Client, new PrimaryLocator(hosts, url, Probe, log)) : Client,
    connectionString: url,
    max: options.poolSize ?? 10,
    maxLifetimeSeconds: options.maxLifetimeSeconds ?? 0,
    // bigint columns hold money units and instants, all within the exact integer range.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? int8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // Without a listener, an idle client's error (the server restarted or cut the connection) would
  // be an uncaught exception that ends the process; the pool already drops the broken client.
  pool.on('error', (error) => options.log?.warn({ err: error }, 'an idle database connection failed; it is replaced'));
  // A client in use has no pool listener: the server ending its session between two statements
  // would end the process the same way. Its next query fails, and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', (error) => options.log?.warn({ err: error }, 'a database connection in use failed; it is replaced')));
  return pool;
}
