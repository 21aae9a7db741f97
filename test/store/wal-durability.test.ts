// SQLite durability and WAL size in long-running processes: commits are flushed off the event
// loop before anything is acknowledged (wal-sync.ts), one-shot commands let SQLite flush inside
// each commit, and a steady stream of commits cannot grow the WAL without bound (WalRestarter).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { durable, flushUnderWay, openDatabase } from '../../src/store/database.js';
import type { DB } from '../../src/store/schema.js';
import { startWalCheckpointer, WalRestarter } from '../../src/store/wal-checkpointer.js';
import { WalSync } from '../../src/store/wal-sync.js';
import { testDatabaseKind } from '../helpers/database.js';
import { client } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-durable-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const synchronous = async (db: Kysely<DB>) => (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous;

describe.skipIf(testDatabaseKind() === 'postgres')('durable commits on SQLite', () => {
  it('a long-running process commits without a flush and owes one until it is done; reads owe none', async () => {
    const database = openDatabase(`sqlite:${path.join(dir, 'served.db')}`, { walCheckpointer: true, sqliteSynchronous: 'full' });
    try {
      expect(await synchronous(database.db)).toBe(1); // NORMAL: the flush is Quipu's, off the event loop
      await sql`create table t (id integer primary key, v text)`.execute(database.db);
      await durable(database.db);
      expect(durable(database.db)).toBeUndefined();
      await sql`insert into t (v) values ('a')`.execute(database.db);
      const owed = durable(database.db);
      expect(owed).toBeInstanceOf(Promise);
      // Commits made while a flush runs are covered by the one that follows it.
      await database.db.transaction().execute(async (trx) => {
        await sql`insert into t (v) values ('b')`.execute(trx);
        await sql`insert into t (v) values ('c')`.execute(trx);
      });
      const next = durable(database.db);
      expect(next).toBeInstanceOf(Promise);
      await Promise.all([owed, next]);
      expect(durable(database.db)).toBeUndefined();
      await sql`select count(*) from t`.execute(database.db);
      expect(durable(database.db)).toBeUndefined();
    } finally {
      await database.close();
    }
  });

  it('names the flush under way, which a batch of writes waits for before it commits (group-commit.ts)', async () => {
    const database = openDatabase(`sqlite:${path.join(dir, 'under-way.db')}`, { walCheckpointer: true, sqliteSynchronous: 'full' });
    try {
      await sql`create table t (id integer primary key)`.execute(database.db);
      await durable(database.db);
      expect(flushUnderWay(database.db)).toBeUndefined();
      await sql`insert into t default values`.execute(database.db);
      const owed = durable(database.db);
      const underWay = flushUnderWay(database.db);
      expect(underWay).toBeInstanceOf(Promise);
      await underWay;
      await owed;
      expect(flushUnderWay(database.db)).toBeUndefined();
    } finally {
      await database.close();
    }
  });

  it('a one-shot command lets SQLite flush inside each commit; SQLITE_SYNCHRONOUS=normal flushes never', async () => {
    const oneShot = openDatabase(`sqlite:${path.join(dir, 'cli.db')}`, { sqliteSynchronous: 'full' });
    const fast = openDatabase(`sqlite:${path.join(dir, 'normal.db')}`, { walCheckpointer: true, sqliteSynchronous: 'normal' });
    try {
      expect(await synchronous(oneShot.db)).toBe(2); // FULL
      expect(await synchronous(fast.db)).toBe(1);
      await sql`create table t (id integer primary key)`.execute(fast.db);
      await sql`insert into t default values`.execute(fast.db);
      expect(durable(fast.db)).toBeUndefined();
    } finally {
      await oneShot.close();
      await fast.close();
    }
  });

  it('a flush that fails fails what waits for it, and the next one is tried afresh', async () => {
    const sync = new WalSync(path.join(dir, 'no-such-dir', 'x.db-wal'));
    sync.committed();
    await expect(sync.pending()).rejects.toThrow(/ENOENT/);
    sync.committed();
    await expect(sync.pending()).rejects.toThrow(/ENOENT/);
    await sync.close();
  });

  it('an answer is sent only once the commits before it are flushed', async () => {
    const server = await startTestServer();
    try {
      const account = await server.account();
      const created = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Durable' });
      expect(created.status).toBe(200);
      expect(durable(server.ctx.db)).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(testDatabaseKind() === 'postgres')('the WAL under a steady stream of commits', () => {
  const COMMITS = 3000;

  /** Commits one after another while the checkpoint thread copies the WAL behind them; the frames left in the WAL. */
  async function commitSteadily(
    name: string,
    restarter?: (raw: BetterSqlite3.Database, wal: string) => WalRestarter,
  ): Promise<{ frames: number; rows: unknown }> {
    const file = path.join(dir, name);
    const raw = new BetterSqlite3(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma('wal_autocheckpoint = 0');
    raw.exec('create table t (id integer primary key, v text)');
    const thread = startWalCheckpointer(file, (error) => {
      throw error;
    });
    try {
      const restart = restarter?.(raw, `${file}-wal`);
      const insert = raw.prepare('insert into t (v) values (?)');
      for (let i = 0; i < COMMITS; i++) {
        insert.run('x'.repeat(3000));
        restart?.committed();
      }
      // What a checkpoint reports as its log: the frames in the WAL now. The thread stops first:
      // while one of its checkpoints runs, another reports no log at all (-1).
      await thread.stop();
      const frames = (raw.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
      return { frames, rows: raw.prepare('select count(*) as n from t').get() };
    } finally {
      await thread.stop();
      raw.close();
    }
  }

  it('grows while the thread never catches up, and starts over once past the limit with the restarter', async () => {
    // Each of the thread's checkpoints ends after commits it did not copy: the WAL never starts over.
    const unbounded = await commitSteadily('unbounded.db');
    expect(unbounded.frames).toBeGreaterThanOrEqual(COMMITS);
    const bounded = await commitSteadily('bounded.db', (raw, wal) => new WalRestarter(raw, wal, { restartBytes: 256 * 1024, commitsBetweenChecks: 16 }));
    expect(bounded.frames).toBeLessThan(COMMITS / 2);
    expect(bounded.rows).toEqual({ n: COMMITS });
  });
});
