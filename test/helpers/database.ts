// Each test file gets its own empty database: a SQLite file in a temporary directory, or, when
// TEST_DATABASE_URL points at PostgreSQL, a fresh database created on that server. The bench uses
// the same to get clean databases.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  dataDir: string;
  kind: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

export function testDatabaseKind(): 'sqlite' | 'postgres' {
  return process.env.TEST_DATABASE_URL?.startsWith('postgres') ? 'postgres' : 'sqlite';
}

export async function createTestDatabase(kind = testDatabaseKind(), adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-test-'));
  if (kind === 'sqlite') {
    return {
      url: `sqlite:${path.join(dataDir, 'quipu.db')}`,
      dataDir,
      kind,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `quipu_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
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
