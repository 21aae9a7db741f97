// A PostgreSQL primary with a synchronous streaming standby, made for one test or bench run from
// the machine's PostgreSQL binaries (Debian's /usr/lib/postgresql/<version>/bin): two clusters
// in a temporary folder on free ports, started with pg_ctl, never registered with the system and
// never the machine's own cluster, and removed by stop(). Root cannot run PostgreSQL: as root they
// run as the `postgres` system user.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './quipu-processes.js';

const run = promisify(execFile);

/** The application_name the standby streams under, which the primary's synchronous_standby_names names. */
const STANDBY_NAME = 'standby1';

/** The newest PostgreSQL's binaries on this machine, or undefined when there are none. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((version) => ['initdb', 'pg_ctl', 'pg_basebackup'].every((tool) => fs.existsSync(path.join(root, version, 'bin', tool))))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(root, versions[0], 'bin');
}

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

interface Runner {
  bin: string;
  /** As root: the postgres user's ids, which the tools and the clusters' files need. */
  ids: { uid: number; gid: number } | undefined;
}

function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function tool(runner: Runner, name: string, args: string[]): Promise<void> {
  try {
    await run(path.join(runner.bin, name), args, { ...runner.ids, env: { ...process.env, LC_ALL: 'C' }, timeout: 60_000 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${name} ${args.join(' ')} failed: ${e.stderr || e.message}`);
  }
}

const settings = (lines: Record<string, string | number>) =>
  `\n${Object.entries(lines)
    .map(([name, value]) => `${name} = ${typeof value === 'number' ? value : `'${value}'`}`)
    .join('\n')}\n`;

/** Starts the primary and its standby, and resolves once the standby streams synchronously. */
export async function startStandbyPair(): Promise<StandbyPair> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql: apt-get install -y postgresql');
  const runner: Runner = { bin, ids: postgresIds() };
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-standby-pair-'));
  if (runner.ids) fs.chownSync(folder, runner.ids.uid, runner.ids.gid);
  const primary = path.join(folder, 'primary');
  const standby = path.join(folder, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const ctl = (dir: string, ...args: string[]) => tool(runner, 'pg_ctl', ['-D', dir, '-w', '-t', '60', ...args]);
  const started: string[] = [];
  const stopAll = () => {
    for (const dir of started) {
      try {
        execFileSync(path.join(bin, 'pg_ctl'), ['-D', dir, '-m', 'immediate', 'stop'], { ...runner.ids, stdio: 'ignore' });
      } catch {
        // Already stopped (the primary the test killed).
      }
    }
    fs.rmSync(folder, { recursive: true, force: true });
  };
  // A test process that ends without stopping them (a crash, Ctrl-C) leaves no server behind.
  process.once('exit', stopAll);
  try {
    await tool(runner, 'initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
    fs.appendFileSync(
      path.join(primary, 'postgresql.conf'),
      settings({
        listen_addresses: '127.0.0.1',
        port: primaryPort,
        unix_socket_directories: folder,
        shared_buffers: '32MB',
        // The production default docs/operations.md recommends: a commit is acknowledged once the
        // standby has it on disk too, so nothing acknowledged is lost when the standby takes over.
        synchronous_commit: 'on',
        synchronous_standby_names: `FIRST 1 (${STANDBY_NAME})`,
      }),
    );
    await ctl(primary, '-l', path.join(folder, 'primary.log'), 'start');
    started.push(primary);
    // -R: standby.signal and primary_conninfo (with the application_name the primary waits for).
    await tool(runner, 'pg_basebackup', [
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
    fs.appendFileSync(
      path.join(standby, 'postgresql.conf'),
      settings({
        port: standbyPort,
        // Promoted, it has no standby of its own until one is attached: waiting for one would stop
        // every write (docs/operations.md says how to attach the next standby).
        synchronous_standby_names: '',
      }),
    );
    await ctl(standby, '-l', path.join(folder, 'standby.log'), 'start');
    started.push(standby);
    const urlOf = (port: number, database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
    await streamingSynchronously(urlOf(primaryPort));
    return {
      primaryPort,
      standbyPort,
      urlOf,
      multiHostUrl: (database) => `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/${database}?target_session_attrs=read-write`,
      killPrimary: () => ctl(primary, '-m', 'immediate', 'stop'),
      promoteStandby: () => ctl(standby, 'promote'),
      stop: async () => {
        process.off('exit', stopAll);
        stopAll();
      },
    };
  } catch (error) {
    process.off('exit', stopAll);
    stopAll();
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
