// Each test file gets its own database: a SQLite file in a temporary directory, or, when
// TEST_DATABASE_URL points at PostgreSQL, a fresh database created on that server, reached through
// a private PgBouncer in transaction mode when TEST_DATABASE_VIA=pgbouncer (via-pgbouncer.ts). It
// is empty, or, asked `migrated`, a copy of a template migrated once per version of the migrations
// (migrating each test's database anew cost PostgreSQL one to two seconds a file). The bench uses
// the same to get clean databases.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, Migrator } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/store/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/store/migrate.js';
import { throughPgBouncer } from './pgbouncer.js';

export interface TestDatabase {
  url: string;
  dataDir: string;
  kind: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

export function testDatabaseKind(): 'sqlite' | 'postgres' {
  return process.env.TEST_DATABASE_URL?.startsWith('postgres') ? 'postgres' : 'sqlite';
}

export interface DatabaseOptions {
  /** Already migrated to the latest migration: for tests that do not watch a database being migrated. */
  migrated?: boolean;
}

export async function createTestDatabase(
  kind = testDatabaseKind(),
  adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  options: DatabaseOptions = {},
): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-test-'));
  if (kind === 'sqlite') {
    const file = path.join(dataDir, 'quipu.db');
    if (options.migrated) fs.copyFileSync(await sqliteTemplate(), file);
    return {
      url: `sqlite:${file}`,
      dataDir,
      kind,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `quipu_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(options.migrated ? `create database ${name} template ${await postgresTemplate(admin, adminUrl)}` : `create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: process.env.TEST_DATABASE_VIA === 'pgbouncer' ? throughPgBouncer(url.toString(), pgBouncerPort()) : url.toString(),
    dataDir,
    kind,
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Names the migrations as they are now: a template made from other migrations is never used. */
function migrationsVersion(): string {
  const folder = new URL('../../src/store/migrations/', import.meta.url);
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(folder).sort()) hash.update(file).update(fs.readFileSync(new URL(file, folder)));
  return hash.digest('hex').slice(0, 12);
}

async function migrate(url: string): Promise<void> {
  const opened = openDatabase(url, { sqliteSynchronous: 'normal', poolSize: 1 });
  try {
    await migrateToLatest(opened.db);
  } finally {
    await opened.close();
  }
}

/** The migrated SQLite file of this version of the migrations, made once and put in place whole, so that a process reading it never sees half of it. */
async function sqliteTemplate(): Promise<string> {
  const file = path.join(os.tmpdir(), `quipu-template-${migrationsVersion()}.db`);
  if (fs.existsSync(file)) return file;
  const building = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-template-'));
  const built = path.join(building, 'quipu.db');
  await migrate(`sqlite:${built}`);
  // Checkpointed by its close: the copy is the one file.
  fs.renameSync(built, file);
  fs.rmSync(building, { recursive: true, force: true });
  return file;
}

/** The migrated PostgreSQL template of this version of the migrations, made once under a lock that the processes of a run share. */
async function postgresTemplate(admin: pg.Client, adminUrl: string): Promise<string> {
  const name = `quipu_template_${migrationsVersion()}`;
  await admin.query("select pg_advisory_lock(hashtext('quipu test template'))");
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      const building = `${name}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      await migrate(url.toString());
      await admin.query(`alter database ${building} rename to ${name}`);
      // Templates of earlier migrations are of no more use.
      const earlier = await admin.query("select datname from pg_database where datname like 'quipu\\_template\\_%' and datname <> $1", [name]);
      for (const { datname } of earlier.rows as { datname: string }[]) await admin.query(`drop database if exists ${datname} with (force)`);
    }
    return name;
  } finally {
    await admin.query("select pg_advisory_unlock(hashtext('quipu test template'))");
  }
}

function pgBouncerPort(): number {
  const port = Number(process.env.TEST_PGBOUNCER_PORT);
  if (!port)
    throw new Error('TEST_DATABASE_VIA=pgbouncer without TEST_PGBOUNCER_PORT: the global setup test/helpers/via-pgbouncer.ts starts PgBouncer and sets it');
  return port;
}

/** One piece of work on a connection of its own to `url`, closed after it. */
export async function withPostgresClient<T>(url: string, work: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/** One piece of work as the PostgreSQL server's administrator (TEST_DATABASE_URL), in `database` when named. */
export function asPostgresAdmin<T>(work: (db: pg.Client) => Promise<T>, database?: string): Promise<T> {
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  if (database) url.pathname = `/${database}`;
  return withPostgresClient(url.toString(), work);
}

/**
 * PostgreSQL as a stopped or restarting server looks to its clients: every connection to the test
 * database dropped and new ones refused, until the function it gives back is called.
 */
export async function refuseConnections(database: TestDatabase): Promise<() => Promise<void>> {
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`alter database ${name} allow_connections false`);
  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
  return async () => {
    await admin.query(`alter database ${name} allow_connections true`);
    await admin.end();
    // PgBouncer refuses every query for server_login_retry after a failed login: given back means usable again.
    if (process.env.TEST_DATABASE_VIA === 'pgbouncer') await answering(database.url);
  };
}

async function answering(url: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; ;) {
    const client = new pg.Client({ connectionString: url });
    // PgBouncer ends the connection after refusing the query: that rejection is the answer, not an error of its own.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

export interface EarlierDatabase {
  database: TestDatabase;
  opened: Database;
  // The schema of an earlier migration, which the current types do not describe.
  db: Kysely<any>;
  close(): Promise<void>;
}

/** A fresh database migrated up to, not including, the migration whose name starts with `migration`: to test how it upgrades existing rows. */
export async function databaseBefore(migration: string): Promise<EarlierDatabase> {
  const database = await createTestDatabase();
  const opened = openDatabase(database.url);
  const db = opened.db as Kysely<any>;
  const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < migration));
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest();
  if (error) throw error;
  return {
    database,
    opened,
    db,
    close: async () => {
      await opened.close();
      await database.drop();
    },
  };
}

/** A merchants row as migration 001 made the table, for the databases of databaseBefore. */
export function earlyMerchantRow(receiverId: number, at: number, profile: Record<string, string> = {}) {
  return {
    receiver_id: receiverId,
    name: 'Shop',
    secret_enc: 'x',
    api_key_hash: `h${receiverId}`,
    developer: 1,
    notify_url: null,
    notify_api_version: '3.0',
    feature_confirm: 0,
    feature_integrator: 0,
    feature_refunds: 0,
    feature_contract_url: 0,
    feature_psp: 0,
    parent_receiver_id: null,
    payment_methods: '[]',
    users: '[]',
    collect_accounts: '[]',
    country_code: 'CL',
    profile: JSON.stringify(profile),
    created_at: at,
    updated_at: at,
  };
}
