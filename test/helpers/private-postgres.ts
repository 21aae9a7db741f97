// PostgreSQL servers of a test's own, made from the machine's PostgreSQL binaries (Debian's
// /usr/lib/postgresql/<version>/bin): clusters in a temporary folder, on ports the test chooses,
// started with pg_ctl, never registered with the system and never the machine's own cluster, for
// what the shared server must not be reconfigured for (a standby, TLS, certificate sign-in). They
// and the folder are removed by stop(). Root cannot run PostgreSQL: as root they run as the
// `postgres` system user.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

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

export type Settings = Record<string, string | number>;

export interface PrivatePostgres {
  /** The temporary folder: the clusters, their logs and their Unix sockets. */
  folder: string;
  /** Runs one of PostgreSQL's tools (`pg_basebackup`) as the clusters' user. */
  tool(name: string, args: string[]): Promise<void>;
  /** `pg_ctl -D <dir> -w` with `args`, as the clusters' user. */
  ctl(dir: string, ...args: string[]): Promise<void>;
  /** A new cluster in the folder's `name`, its superuser `postgres` trusted, listening on 127.0.0.1:`port`, with `settings` too; its data folder. */
  init(name: string, port: number, settings?: Settings): Promise<string>;
  /** Adds `settings` to the postgresql.conf of the cluster in `dir`, overriding earlier ones. */
  configure(dir: string, settings: Settings): void;
  /** Writes a file a cluster reads (a key, its pg_hba.conf): owned by the clusters' user and readable by it alone, as PostgreSQL wants a key. */
  writeClusterFile(file: string, content: string): void;
  /** Starts the cluster in `dir`, its log beside it; stop() stops it. */
  start(dir: string): Promise<void>;
  /** Stops every cluster started at once (as a crash would) and removes the folder. */
  stop(): void;
}

/** As root: the postgres user's ids, which the tools and the clusters' files need. */
function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

const settingLines = (settings: Settings) =>
  `\n${Object.entries(settings)
    .map(([name, value]) => `${name} = ${typeof value === 'number' ? value : `'${value}'`}`)
    .join('\n')}\n`;

/** A new temporary folder for clusters, its name starting with `prefix`. Throws when the machine has no PostgreSQL binaries. */
export function privatePostgres(prefix: string): PrivatePostgres {
  const bin = postgresBinaries();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql: apt-get install -y postgresql');
  const ids = postgresIds();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (ids) fs.chownSync(folder, ids.uid, ids.gid);
  const started: string[] = [];

  const tool = async (name: string, args: string[]) => {
    try {
      await run(path.join(bin, name), args, { ...ids, env: { ...process.env, LC_ALL: 'C' }, timeout: 60_000 });
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(`${name} ${args.join(' ')} failed: ${e.stderr || e.message}`);
    }
  };
  const ctl = (dir: string, ...args: string[]) => tool('pg_ctl', ['-D', dir, '-w', '-t', '60', ...args]);
  const configure = (dir: string, settings: Settings) => fs.appendFileSync(path.join(dir, 'postgresql.conf'), settingLines(settings));

  const stopAll = () => {
    for (const dir of started) {
      try {
        execFileSync(path.join(bin, 'pg_ctl'), ['-D', dir, '-m', 'immediate', 'stop'], { ...ids, stdio: 'ignore' });
      } catch {
        // Already stopped (a primary a test killed).
      }
    }
    fs.rmSync(folder, { recursive: true, force: true });
  };
  // A test process that ends without stopping them (a crash, Ctrl-C) leaves no server behind.
  process.once('exit', stopAll);

  return {
    folder,
    tool,
    ctl,
    configure,
    init: async (name, port, settings = {}) => {
      const dir = path.join(folder, name);
      await tool('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
      configure(dir, { listen_addresses: '127.0.0.1', port, unix_socket_directories: folder, shared_buffers: '32MB', ...settings });
      return dir;
    },
    writeClusterFile: (file, content) => {
      fs.writeFileSync(file, content, { mode: 0o600 });
      fs.chmodSync(file, 0o600);
      if (ids) fs.chownSync(file, ids.uid, ids.gid);
    },
    start: async (dir) => {
      await ctl(dir, '-l', `${dir}.log`, 'start');
      started.push(dir);
    },
    stop: () => {
      process.off('exit', stopAll);
      stopAll();
    },
  };
}
