// A PostgreSQL DATABASE_URL ending in ?pooler=transaction, reached through a private PgBouncer in
// transaction mode: migrations of processes starting together still take turns and leave no lock
// behind on a pooled server connection, and statements whose effect would outlive their
// transaction are refused before they are sent. The API, delivery and job suites run through
// PgBouncer as a whole with `npm run test:pgbouncer`.
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/store/migrate.js';
import type { DB } from '../../src/store/schema.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.js';
import { type PgBouncer, startPgBouncer, throughPgBouncer } from '../helpers/pgbouncer.js';

describe.skipIf(testDatabaseKind() === 'sqlite')('PostgreSQL through a transaction pooler', () => {
  let pgbouncer: PgBouncer;
  let database: TestDatabase;
  let pooledUrl: string;

  beforeAll(async () => {
    pgbouncer = await startPgBouncer(process.env.TEST_DATABASE_URL);
    database = await createTestDatabase();
    pooledUrl = throughPgBouncer(database.url, pgbouncer.port);
  });

  afterAll(async () => {
    await database?.drop();
    await pgbouncer?.stop();
  });

  it('migrates from four processes starting together, each migration once, and leaves no advisory lock held', async () => {
    const opened = Array.from({ length: 4 }, () => openDatabase(pooledUrl, { poolSize: 2 }));
    try {
      const reports = await Promise.all(opened.map((o) => migrateToLatest(o.db)));
      expect(reports.flatMap((r) => r.applied).sort()).toEqual(Object.keys(MIGRATIONS).sort());
    } finally {
      for (const o of opened) await o.close();
    }
    const direct = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await direct.connect();
    try {
      const held = await direct.query(
        `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database where l.locktype = 'advisory' and d.datname = $1`,
        [new URL(database.url).pathname.slice(1)],
      );
      expect(held.rows[0].n).toBe(0);
    } finally {
      await direct.end();
    }
  });

  describe('a statement that keeps session state', () => {
    let db: Kysely<DB>;
    let close: () => Promise<void>;

    beforeAll(() => ({ db, close } = openDatabase(pooledUrl, { poolSize: 2 })));
    afterAll(() => close());

    it.each(['listen quipu', 'set statement_timeout = 0', 'select pg_advisory_lock(1)', 'create temporary table scratch (n int)', 'prepare mine as select 1'])(
      'refuses %s, naming the pooler',
      async (statement) => {
        await expect(sql.raw(statement).execute(db)).rejects.toThrow(/keeps session state.*pooler=transaction/);
      },
    );

    it('runs what ends with its transaction', async () => {
      const rows = await db.transaction().execute(async (trx) => {
        await sql`set local statement_timeout = 5000`.execute(trx);
        await sql`select pg_advisory_xact_lock(1)`.execute(trx);
        return (await sql<{ timeout: string }>`select current_setting('statement_timeout') as timeout`.execute(trx)).rows;
      });
      expect(rows).toEqual([{ timeout: '5s' }]);
    });
  });
});
