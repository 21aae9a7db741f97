// A PostgreSQL primary with a synchronous streaming standby, made for one test or bench run: two
// private clusters (private-postgres.ts) on free ports, removed by stop().
import path from 'node:path';
import pg from 'pg';
import { privatePostgres } from './private-postgres.js';
import { freePort } from './quipu-processes.js';

export { postgresBinaries } from './private-postgres.js';

/** The application_name the standby streams under, which the primary's synchronous_standby_names names. */
const STANDBY_NAME = 'standby1';

export interface StandbyPair {
  primaryPort: number;
  standbyPort: number;
  /** A database on the pair (created on the primary, streamed to the standby), as libpq's multi-host URL names it: the primary first. */
  multiHostUrl(database: string): string;
  /** The URL of a database on one of the two servers. */
  urlOf(port: number, database?: string): string;
  /** The primary stops at once, as a crash would stop it: `pg_ctl stop -m immediate`. */
  killPrimary(): Promise<void>;
  /** The standby becomes a primary (`pg_ctl promote`, waiting until it takes writes). */
  promoteStandby(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the primary and its standby, and resolves once the standby streams synchronously. */
export async function startStandbyPair(): Promise<StandbyPair> {
  const clusters = privatePostgres('quipu-standby-pair-');
  try {
    const [primaryPort, standbyPort] = [await freePort(), await freePort()];
    const primary = await clusters.init('primary', primaryPort, {
      // The production default docs/operations.md recommends: a commit is acknowledged once the
      // standby has it on disk too, so nothing acknowledged is lost when the standby takes over.
      synchronous_commit: 'on',
      synchronous_standby_names: `FIRST 1 (${STANDBY_NAME})`,
    });
    await clusters.start(primary);
    const standby = path.join(clusters.folder, 'standby');
    // -R: standby.signal and primary_conninfo (with the application_name the primary waits for).
    await clusters.tool('pg_basebackup', [
      '-d',
      `host=127.0.0.1 port=${primaryPort} user=postgres application_name=${STANDBY_NAME}`,
      '-D',
      standby,
      '-R',
      '-X',
      'stream',
      '--checkpoint=fast',
      '--no-sync',
    ]);
    clusters.configure(standby, {
      port: standbyPort,
      // Promoted, it has no standby of its own until one is attached: waiting for one would stop
      // every write (docs/operations.md says how to attach the next standby).
      synchronous_standby_names: '',
    });
    await clusters.start(standby);
    const urlOf = (port: number, database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
    await streamingSynchronously(urlOf(primaryPort));
    return {
      primaryPort,
      standbyPort,
      urlOf,
      multiHostUrl: (database) => `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/${database}?target_session_attrs=read-write`,
      killPrimary: () => clusters.ctl(primary, '-m', 'immediate', 'stop'),
      promoteStandby: () => clusters.ctl(standby, 'promote'),
      stop: async () => clusters.stop(),
    };
  } catch (error) {
    clusters.stop();
    throw error;
  }
}

/** Resolves once the primary reports its standby as synchronous, so that every commit from then on waits for it. */
async function streamingSynchronously(primaryUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    for (const deadline = Date.now() + 30_000; ;) {
      const { rows } = await client.query("select sync_state from pg_stat_replication where application_name = $1 and state = 'streaming'", [STANDBY_NAME]);
      if (rows[0]?.sync_state === 'sync') return;
      if (Date.now() > deadline) throw new Error(`the standby does not stream synchronously: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}
