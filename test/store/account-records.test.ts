// THE table of an account's tables (store/account-records.ts) held to the schema the migrations
// build, read from the database's own catalog: deleting an account deletes its tables in the
// reverse of the table's order, and a restore deletes and inserts its state in that order, so every
// foreign key between two of them must point up the table, every table that can hold an account's
// rows must be in it, and nothing a restore keeps may refer to what it replaces.
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/store/database.js';
import { ACCOUNT_RECORDS, ACCOUNT_ROW, SNAPSHOT_RECORDS } from '../../src/store/account-records.js';
import type { DB } from '../../src/store/schema.js';
import { useTestServer } from '../helpers/server.js';

const setup = useTestServer();

/** Tables that hold an account's id but are not its records, and why. */
const NOT_ACCOUNT_RECORDS: Record<string, string> = {
  audit_log: "the installation's record of who did what: it outlives the account, and its hash chain must not lose a link",
  sandbox_snapshots: "the account's snapshots: not its state, so a restore keeps them; they go with the account (app/sandbox-accounts.ts)",
  sandbox_snapshot_tables: 'the content of those snapshots, by snapshot',
  account_wakes:
    "the job runner's queue of accounts whose work is due (jobs/runner.ts): a process's hold, not the account's state; a deleted account's wake runs nothing and ends",
  request_logs:
    "the API database's table is only written when REQUEST_LOG_STORE=database: the request log's sink forgets a deleted account's rows wherever it keeps them (app/request-records.ts)",
};

interface ForeignKey {
  child: string;
  column: string;
  parent: string;
}

async function foreignKeys(db: Kysely<DB>): Promise<ForeignKey[]> {
  const { rows } =
    dialectOf(db) === 'postgres'
      ? await sql<ForeignKey>`
          select c.relname as child, a.attname as column, p.relname as parent
          from pg_constraint k
          join pg_class c on c.oid = k.conrelid
          join pg_class p on p.oid = k.confrelid
          join pg_attribute a on a.attrelid = k.conrelid and a.attnum = any(k.conkey)
          where k.contype = 'f' and c.relnamespace = current_schema()::regnamespace`.execute(db)
      : await sql<ForeignKey>`
          select m.name as child, f."from" as "column", f."table" as parent
          from sqlite_schema m join pragma_foreign_key_list(m.name) f
          where m.type = 'table'`.execute(db);
  return rows;
}

async function tablesWithColumn(db: Kysely<DB>, column: string): Promise<string[]> {
  const { rows } =
    dialectOf(db) === 'postgres'
      ? await sql<{ name: string }>`
          select c.table_name as name from information_schema.columns c
          join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
          where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.column_name = ${column}`.execute(db)
      : await sql<{ name: string }>`
          select m.name from sqlite_schema m join pragma_table_info(m.name) c
          where m.type = 'table' and c.name = ${column}`.execute(db);
  return rows.map((row) => row.name).sort();
}

const position = (table: string) => ACCOUNT_RECORDS.findIndex((records) => records.table === table);

describe("THE table of an account's tables against the schema", () => {
  it('orders every foreign key between two account tables parent first, so deletion and restore never trip on one', async () => {
    const keys = await foreignKeys(setup.server.ctx.db);
    expect(keys.length).toBeGreaterThan(20);
    const between = keys.filter((key) => key.child !== key.parent && position(key.child) >= 0);
    expect(between.length).toBeGreaterThan(15);
    for (const key of between) {
      expect(position(key.parent), `${key.child}.${key.column} → ${key.parent}: the parent is an account table`).toBeGreaterThanOrEqual(0);
      expect(position(key.parent), `${key.child}.${key.column} → ${key.parent}: the parent comes first`).toBeLessThan(position(key.child));
    }
  });

  it('holds every table that refers to an account table or names an account', async () => {
    const db = setup.server.ctx.db;
    const referring = (await foreignKeys(db)).filter((key) => position(key.parent) >= 0).map((key) => key.child);
    const naming = await tablesWithColumn(db, 'receiver_id');
    for (const table of new Set([...referring, ...naming]))
      expect(position(table) >= 0 || table in NOT_ACCOUNT_RECORDS, `${table} is in ACCOUNT_RECORDS or named as not the account's`).toBe(true);
    for (const table of Object.keys(NOT_ACCOUNT_RECORDS)) expect(position(table), table).toBe(-1);
  });

  it('lets a restore keep what it keeps: nothing kept refers to a replaced table but the account row, nothing replaced to a kept one', async () => {
    const replaced = new Set(SNAPSHOT_RECORDS.map((records) => records.table));
    const kept = new Set(ACCOUNT_RECORDS.filter((records) => records.kept).map((records) => records.table));
    expect([...kept].sort()).toEqual(
      ['dashboard_recovery_codes', 'dashboard_sessions', 'dashboard_users', 'oauth_authorizations', 'oauth_consents', 'oauth_tokens'].sort(),
    );
    for (const key of await foreignKeys(setup.server.ctx.db)) {
      if (kept.has(key.child)) expect(key.parent === ACCOUNT_ROW.table || kept.has(key.parent), `${key.child} → ${key.parent}`).toBe(true);
      if (replaced.has(key.child) && key.child !== key.parent) expect(kept.has(key.parent), `${key.child} → ${key.parent}`).toBe(false);
    }
  });

  it("names the account row's credential columns as columns of it", async () => {
    expect(ACCOUNT_ROW.table).toBe('merchants');
    for (const column of ACCOUNT_ROW.credentials!) expect(await tablesWithColumn(setup.server.ctx.db, column), column).toContain('merchants');
  });
});
