// SQLite checkpoints from a thread of their own: commits never copy the WAL into the database
// file, the thread does, and a thread that cannot run is reported so checkpoints fall back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { startWalCheckpointer } from '../../src/store/wal-checkpointer.js';
import { testDatabaseKind } from '../helpers/database.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-wal-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(testDatabaseKind() === 'postgres')('WAL checkpoint thread', () => {
  it('copies committed pages into the database file while commits only append to the WAL', async () => {
    const file = path.join(dir, 'checkpointed.db');
    const database = openDatabase(`sqlite:${file}`, { walCheckpointer: true });
    try {
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db);
      expect(rows[0]!.wal_autocheckpoint).toBe(0);
      await sql`create table filler (id integer primary key, body text not null)`.execute(database.db);
      const emptySize = fs.statSync(file).size;
      // Each commit appends at least one 4 KiB page: 1,500 of them pass the 1,000-page mark where
      // the connection itself would have checkpointed.
      for (let i = 0; i < 1_500; i++) await sql`insert into filler (body) values (${'x'.repeat(3_000)})`.execute(database.db);
      await eventually(() => fs.statSync(file).size > emptySize + 1_500 * 3_000);
      const { rows: count } = await sql<{ n: number }>`select count(*) as n from filler`.execute(database.db);
      expect(count[0]!.n).toBe(1_500);
    } finally {
      await database.close();
    }
  });

  it('reports a thread that cannot open the database', async () => {
    const failure = await new Promise<Error>((resolve) => startWalCheckpointer(path.join(dir, 'missing', 'nested', 'x.db'), resolve));
    expect(failure.message).toMatch(/directory does not exist|unable to open/i);
  });
});
