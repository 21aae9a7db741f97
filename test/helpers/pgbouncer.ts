// A private PgBouncer in transaction mode in front of a PostgreSQL server: Debian's `pgbouncer`
// (1.18, which keeps no named prepared statement across transactions), run from a configuration in
// a temporary folder on a free port, never the system's service. Every database of the server is
// reachable through it under its own name.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './quipu-processes.js';

const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  stop(): Promise<void>;
}

/** `server` is a postgres:// URL whose host and port PgBouncer connects to (its user signs in without a password, as on this machine). */
export async function startPgBouncer(server = 'postgres://postgres@127.0.0.1:5432/postgres'): Promise<PgBouncer> {
  if (!fs.existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install -y pgbouncer`);
  const target = new URL(server);
  const user = decodeURIComponent(target.username) || 'postgres';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-pgbouncer-'));
  // PgBouncer refuses to run as root: it then runs as the postgres system user, which must read its files.
  const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  for (let tries = 0; ; tries++) {
    const port = await freePort();
    fs.writeFileSync(
      path.join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${target.hostname} port=${target.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        // No Unix socket: the system's PgBouncer, if any, keeps its own.
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${path.join(dir, 'users.txt')}`,
        'pool_mode = transaction',
        'max_client_conn = 500',
        // At least a Quipu server's and a worker's pools together (DB_POOL_SIZE 10 each) per database.
        'default_pool_size = 20',
        // Test databases come and go: their idle server connections are not kept.
        'server_idle_timeout = 10',
        // PostgreSQL away: a query waits for a server connection 5 s at most (not 120) and fails,
        // and PostgreSQL back is tried again within a second (not 15), as docs/operations.md advises.
        'query_wait_timeout = 5',
        'server_login_retry = 1',
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    const child = spawn(PGBOUNCER, [...asUser, path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (chunk) => (log += String(chunk)));
    const ready = await whenReady(child, `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${target.pathname.slice(1) || 'postgres'}`);
    if (ready) {
      // A test process that ends without stopping it (a crash, Ctrl-C) leaves no PgBouncer behind.
      const orphaned = () => child.kill('SIGTERM');
      process.once('exit', orphaned);
      return {
        port,
        stop: async () => {
          process.off('exit', orphaned);
          await stopChild(child);
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await stopChild(child);
    // Another process may have taken the free port between the look and PgBouncer's bind.
    if (tries === 2) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start:\n${log}`);
    }
  }
}

/** Whether PgBouncer answers a query within 10 s; false as soon as it exits. */
async function whenReady(child: ChildProcess, url: string): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const client = new pg.Client({ connectionString: url });
    // PgBouncer ends the connection after refusing the query: that rejection is the answer, not an error of its own.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return false;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // SIGTERM: PgBouncer's immediate shutdown, without waiting for clients to leave.
  child.kill('SIGTERM');
  await exited;
}

/** The URL of `url`'s database through the PgBouncer on `port`, marked for Quipu as reached through a transaction pooler. */
export function throughPgBouncer(url: string, port: number): string {
  const pooled = new URL(url);
  pooled.hostname = '127.0.0.1';
  pooled.port = String(port);
  pooled.searchParams.set('pooler', 'transaction');
  return pooled.toString();
}
