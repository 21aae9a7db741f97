// A server and its workers start together on a new database: each migrates it on start, makes the
// key file of a developer's machine, and a server gives an empty database its demo account. Each
// of those happens once (CI once saw "table messages already exists" from the loser of a race).
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { countRows } from '../helpers/payments.js';
import { quipu, serveOnFreePort, type ServerProcess } from '../helpers/process.js';

const PROCESSES = 4;

async function query<T>(database: TestDatabase, read: (db: Kysely<any>) => Promise<T>): Promise<T> {
  const opened = openDatabase(database.url);
  try {
    return await read(opened.db as Kysely<any>);
  } finally {
    await opened.close();
  }
}

describe('processes starting together on one new database', () => {
  it('apply each migration once, every one of them succeeding, and share one key file', async () => {
    const database = await createTestDatabase();
    try {
      const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn' };
      const results = await Promise.all(Array.from({ length: PROCESSES }, () => quipu(['migrate'], env)));
      for (const result of results) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).not.toMatch(/error|exists/i);
      }
      const { applied, messages } = await query(database, async (db) => ({
        applied: await db.selectFrom('kysely_migration').select('name').orderBy('name').execute(),
        messages: await countRows(db, 'messages'),
      }));
      expect(applied.map((m) => m.name)).toEqual(Object.keys(MIGRATIONS));
      expect(messages).toBe(0);
      expect(fs.readdirSync(database.dataDir).filter((f) => f.startsWith('encryption.key'))).toEqual(['encryption.key']);
      expect(fs.readFileSync(path.join(database.dataDir, 'encryption.key'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    } finally {
      await database.drop();
    }
  });

  it('make one demo account, printed by the server that made it', async () => {
    const database = await createTestDatabase();
    const started: ServerProcess[] = [];
    try {
      const env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', RUN_WORKER: 'false' };
      const servers = await Promise.all([serveOnFreePort(env, started), serveOnFreePort(env, started)]);
      // Logged once a server has made the demo account or found one: the rest of its start is decided.
      for (const server of servers) await server.waitFor('quipu is listening');
      const printing = () => servers.filter((s) => s.output().includes('API reference:'));
      await expect.poll(() => printing().length).toBeGreaterThan(0);
      expect(printing()).toHaveLength(1);
      const merchants = await query(database, (db) => db.selectFrom('merchants').select('receiver_id').execute());
      expect(merchants).toHaveLength(1);
      expect(/receiver_id\s+(\d+)/.exec(printing()[0]!.output())?.[1]).toBe(String(merchants[0]!.receiver_id));
    } finally {
      await Promise.all(started.map((s) => s.stop()));
      await database.drop();
    }
  });
});
