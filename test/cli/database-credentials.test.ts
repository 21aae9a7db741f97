// Database credentials that change while Quipu runs (ASVS 13.2.1): each new PostgreSQL connection
// signs in with the user and password DATABASE_URL_FILE holds at that moment, as a secrets
// manager's short-lived credentials need (Vault's database secrets engine rendered by its agent).
// Two login roles stand for two leases. This machine's PostgreSQL trusts local connections, so no
// password is checked: which is why the test watches the USER change, in pg_stat_activity. A
// production server started as the first role, its file rewritten to name the second, and its
// connections ended (as Vault's revocation ends a lease's sessions), serves again as the second
// without a restart; a file it cannot read fails the connection with an error naming the file,
// logged, without the password. Without ending any connection, one in constant use moves to the
// new role once it reaches DB_CONNECTION_MAX_LIFETIME_SECONDS.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { asPostgresAdmin, testDatabaseKind } from '../helpers/database.js';
import { call, client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS } from '../helpers/production.js';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const suffix = randomBytes(4).toString('hex');
const ROLE_A = `quipu_lease_a_${suffix}`;
const ROLE_B = `quipu_lease_b_${suffix}`;
/** Never checked (trust authentication), never to be seen in a log line. */
const PASSWORD_B = `lease-b-password-${suffix}`;

describe.skipIf(testDatabaseKind() !== 'postgres')('DATABASE_URL_FILE read again for each new connection', { timeout: 180_000 }, () => {
  const processes = withServerProcesses();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-lease-'));
  const file = path.join(folder, 'database-url');
  let database: string;
  const urlAs = (role: string, password?: string) => {
    const url = new URL(ADMIN_URL);
    url.username = role;
    url.password = password ?? '';
    url.pathname = `/${database}`;
    return url.toString();
  };
  /** The users the server's connections to the test's database signed in as. */
  const users = () =>
    asPostgresAdmin(async (db) => {
      const { rows } = await db.query<{ usename: string }>('select distinct usename from pg_stat_activity where datname = $1', [database]);
      return rows.map((row) => row.usename).sort();
    });
  const endConnectionsOf = (role: string) =>
    asPostgresAdmin((db) => db.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and usename = $2', [database, role]));

  beforeAll(async () => {
    database = new URL(processes.database.url).pathname.slice(1);
    const migrated = await quipu(['migrate'], { DATABASE_URL: urlAs(new URL(ADMIN_URL).username), DATA_DIR: processes.database.dataDir });
    expect(migrated.code, migrated.stderr).toBe(0);
    await asPostgresAdmin(async (db) => {
      // As Vault's database secrets engine makes a lease's role: valid until the lease ends.
      for (const role of [ROLE_A, ROLE_B]) await db.query(`create role ${role} login valid until '${new Date(Date.now() + 3_600_000).toISOString()}'`);
    });
    await asPostgresAdmin(async (db) => {
      for (const role of [ROLE_A, ROLE_B]) {
        await db.query(`grant connect on database ${database} to ${role}`);
        await db.query(`grant usage on schema public to ${role}`);
        await db.query(`grant select, insert, update, delete on all tables in schema public to ${role}`);
        await db.query(`grant usage, select on all sequences in schema public to ${role}`);
      }
    }, database);
  });
  afterAll(async () => {
    for (const server of processes.started) await server.stop();
    await asPostgresAdmin((db) => db.query(`drop owned by ${ROLE_A}, ${ROLE_B}`), database);
    await asPostgresAdmin(async (db) => {
      for (const role of [ROLE_A, ROLE_B]) await db.query(`drop role if exists ${role}`);
    });
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('signs in as the role the file names when each connection opens; an unreadable file fails the connection, naming the file', async () => {
    fs.writeFileSync(file, `${urlAs(ROLE_A)}\n`, { mode: 0o600 });
    const env = { ...PRODUCTION_SETTINGS, DATABASE_URL_FILE: file, DATA_DIR: processes.database.dataDir, LOG_LEVEL: 'info' };
    const created = await quipu(['merchants', 'create', '--name', 'Leased credentials', '--production', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const server = await serveOnFreePort(env, processes.started);
    const api = client(server.baseUrl, JSON.parse(created.stdout).api_key);
    const payment = async (subject: string) => (await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject })).status;
    expect(await payment('As the first role')).toBe(200);
    expect(await users()).toEqual([ROLE_A]);

    // The secrets manager renders the next lease's credentials, then revokes the first lease.
    fs.writeFileSync(file, `${urlAs(ROLE_B, PASSWORD_B)}\n`, { mode: 0o600 });
    // A connection that read the file just before it changed may finish signing in as the first role
    // after the first end: ended again until none is left, as the lease's revocation would.
    await eventually(
      async () => {
        await endConnectionsOf(ROLE_A);
        return users();
      },
      (roles) => !roles.includes(ROLE_A),
    );
    // A connection ended while idle in the pool may be handed out once before the pool has seen it go.
    await eventually(
      () => payment('After the rotation'),
      (status) => status === 200,
    );
    for (const subject of ['Second', 'Third', 'Fourth']) expect(await payment(subject)).toBe(200);
    expect(await users()).toEqual([ROLE_B]);

    // The file gone (an agent that failed to render it): new connections fail, saying which file.
    fs.rmSync(file);
    await endConnectionsOf(ROLE_B);
    await eventually(
      () => payment('Without credentials'),
      (status) => status >= 500,
    );
    await server.waitFor(`DATABASE_URL_FILE names ${file}, which cannot be read (ENOENT)`);
    expect(server.output()).not.toContain(PASSWORD_B);
    expect((await call(server.baseUrl, 'GET', '/readyz')).status).toBe(503);

    // Rendered again: the server recovers by itself.
    fs.writeFileSync(file, `${urlAs(ROLE_B, PASSWORD_B)}\n`, { mode: 0o600 });
    await eventually(
      () => payment('Rendered again'),
      (status) => status === 200,
    );
    await server.stop();
  });

  it('moves a connection in constant use to the new role once it reaches DB_CONNECTION_MAX_LIFETIME_SECONDS, ending none', async () => {
    fs.writeFileSync(file, `${urlAs(ROLE_A)}\n`, { mode: 0o600 });
    // One connection, never idle long enough for the pool's idle timeout: only its lifetime replaces it.
    const opened = openDatabase(urlAs(ROLE_A), { poolSize: 1, credentialsFile: file, maxLifetimeSeconds: 1 });
    const signedInAs = async () => (await sql<{ user: string }>`select current_user as user`.execute(opened.db)).rows[0]!.user;
    try {
      expect(await signedInAs()).toBe(ROLE_A);
      // The next lease's credentials rendered, the first lease not yet revoked.
      fs.writeFileSync(file, `${urlAs(ROLE_B, PASSWORD_B)}\n`, { mode: 0o600 });
      expect(await eventually(signedInAs, (user) => user === ROLE_B, 30_000)).toBe(ROLE_B);
    } finally {
      await opened.close();
    }
  });
});
