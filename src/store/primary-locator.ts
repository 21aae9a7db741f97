// Which of DATABASE_URL's hosts takes writes now: the primary, as libpq's
// target_session_attrs=read-write finds it. A standby promoted after its primary failed is found
// by the processes themselves, without a restart: a connection to the old primary fails, the pool
// drops it, and the next connection looks again, host by host in the URL's order, and keeps the
// first that accepts a connection and is not read-only.
import pg from 'pg';
import type { Logger } from 'pino';
import { hostName, type PostgresHost } from './postgres-hosts.js';

/**
 * How long connecting to one host may take before the next one is tried. A host that is down but
 * still routed answers at once (connection refused); one that vanished from the network would
 * otherwise hold every new connection for the operating system's two minutes.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/** SQLSTATE 08001, sqlclient_unable_to_establish_sqlconnection: what libpq reports when no host fits. */
const NO_HOST_FITS = '08001';

export class PrimaryLocator {
  #found: PostgresHost | undefined;
  #last: PostgresHost | undefined;
  #search: Promise<PostgresHost> | undefined;

  constructor(
    private readonly hosts: readonly PostgresHost[],
    /** The URL's settings (user, database, TLS) the probes connect with. */
    private readonly url: string,
    /** The probes' client class: one that reads credentials that change (postgres-credentials.ts), or pg's own. */
    private readonly Probe: ClientClass,
    private readonly log: Logger | undefined,
  ) {}

  /** The host new connections go to: the one found before, unless it failed since; else the first in order that takes writes. */
  primary(): Promise<PostgresHost> {
    if (this.#found) return Promise.resolve(this.#found);
    // Connections asked for together share one search.
    this.#search ??= this.#find().finally(() => (this.#search = undefined));
    return this.#search;
  }

  /** A connection to `host` failed: the next one looks for the primary again, since it may have moved. */
  lost(host: PostgresHost): void {
    if (this.#found === host) this.#found = undefined;
  }

  async #find(): Promise<PostgresHost> {
    const refusals: string[] = [];
    for (const host of this.hosts) {
      try {
        if (await this.#takesWrites(host)) {
          if (this.#last === undefined) this.log?.info({ host: hostName(host) }, 'database connections go to the primary');
          else if (this.#last !== host) this.log?.warn({ host: hostName(host), before: hostName(this.#last) }, 'database connections go to a new primary');
          this.#found = this.#last = host;
          return host;
        }
        refusals.push(`${hostName(host)} is read-only`);
      } catch (error) {
        refusals.push(`${hostName(host)}: ${(error as Error).message}`);
      }
    }
    throw Object.assign(new Error(`no host of DATABASE_URL takes writes: ${refusals.join('; ')}`), { code: NO_HOST_FITS });
  }

  /** libpq's test for read-write: `transaction_read_only` is off (a standby, or a primary fenced read-only, says on). */
  async #takesWrites(host: PostgresHost): Promise<boolean> {
    const probe = new this.Probe({ connectionString: this.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    probe.host = host.host;
    probe.port = host.port;
    // A probe that fails is an answer (not this host): its error event has nothing to add.
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      const { rows } = await probe.query<{ transaction_read_only: string }>('show transaction_read_only');
      return rows[0]?.transaction_read_only === 'off';
    } finally {
      await probe.end().catch(() => undefined);
    }
  }
}

export type ClientClass = new (config?: pg.ClientConfig) => pg.Client;

/**
 * A client class of the pool whose connections go to the locator's primary: each connects to the
 * host found, and a connection that fails makes the next one look again.
 */
export function primaryClient(Base: ClientClass, locator: PrimaryLocator): ClientClass {
  return class PrimaryClient extends Base {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    }

    // pg-pool connects with a callback, pg's own users without: both are kept.
    override connect(...args: unknown[]): never {
      const [callback] = args as [((error?: Error) => void) | undefined];
      const connected = this.#connectToPrimary();
      if (!callback) return connected as never;
      connected.then(() => callback(), callback);
      return undefined as never;
    }

    async #connectToPrimary(): Promise<void> {
      const primary = await locator.primary();
      this.host = primary.host;
      this.port = primary.port;
      try {
        await super.connect();
      } catch (error) {
        locator.lost(primary);
        throw error;
      }
      // The server gone (stopped, crashed, demoted by a restart): this connection is dropped by the
      // pool, and the next one is made to wherever the primary is then.
      this.on('error', () => locator.lost(primary));
    }
  };
}
