// A server and its workers start together on a new database: each migrates it on start, and only
// one may apply the migrations (CI once saw "table messages already exists" from the loser).
import { Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrate.js';
import { createTestDatabase } from '../helpers/database.js';
import { quipu } from '../helpers/process.js';

const PROCESSES = 4;

describe('processes migrating one new database at the same time', () => {
  it('apply each migration once, and every one of them succeeds', async () => {
    const database = await createTestDatabase();
    try {
      const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn' };
      const results = await Promise.all(Array.from({ length: PROCESSES }, () => quipu(['migrate'], env)));
      for (const result of results) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).not.toMatch(/error|exists/i);
      }
      const opened = openDatabase(database.url);
      try {
        const db = opened.db as unknown as Kysely<{ kysely_migration: { name: string } }>;
        const applied = await db.selectFrom('kysely_migration').select('name').orderBy('name').execute();
        expect(applied.map((m) => m.name)).toEqual(Object.keys(MIGRATIONS));
        const { rows } = await sql<{ n: number }>`select count(*) as n from messages`.execute(opened.db);
        expect(Number(rows[0]!.n)).toBe(0);
      } finally {
        await opened.close();
      }
    } finally {
      await database.drop();
    }
  });
});
