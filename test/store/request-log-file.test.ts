// The request log's own file (REQUEST_LOG_STORE=file): rows are inserted by a thread of their own
// and a batch settles once committed, so a reader on the process's connection sees it; a batch the
// thread cannot insert fails with the database's reason and the next one is inserted; the file is
// made only when a row is written or read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUEST_LOG_FILE, RequestLogFile } from '../../src/store/request-log-file.js';
import type { NewRequestLogRow } from '../../src/store/schema.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-request-log-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const row = (i: number): NewRequestLogRow => ({
  receiver_id: 7,
  at: 1_700_000_000_000 + i,
  method: 'GET',
  path: `/v3/payments/p${i}`,
  status: i % 2 ? 200 : 404,
  duration_ms: 1,
  request_id: `req-${i}`,
  ignored_fields: null,
  error_body: i % 2 ? null : '{"status":404}',
});

function folder(name: string): string {
  const made = path.join(dir, name);
  fs.mkdirSync(made);
  return made;
}

describe('the request log file', () => {
  it('inserts each batch from its thread, committed when the batch settles', async () => {
    const file = new RequestLogFile(folder('batches'));
    try {
      await file.append(Array.from({ length: 3_000 }, (_, i) => row(i)));
      await file.append([row(3_000)]);
      const rows = await (await file.db()).selectFrom('request_logs').selectAll().orderBy('request_log_id').execute();
      expect(rows).toHaveLength(3_001);
      expect(rows[1]).toMatchObject({ ...row(1), request_log_id: 2 });
      expect(rows[3_000]).toMatchObject(row(3_000));
    } finally {
      await file.close();
    }
  });

  it("fails a batch the thread cannot insert with the database's reason, and inserts the next", async () => {
    const file = new RequestLogFile(folder('failed'));
    try {
      await file.append([row(1)]);
      const db = await file.db();
      await sql`alter table request_logs rename to request_logs_away`.execute(db);
      await expect(file.append([row(2)])).rejects.toThrow('request log rows not inserted: no such table: request_logs');
      await sql`alter table request_logs_away rename to request_logs`.execute(db);
      await file.append([row(3)]);
      expect((await db.selectFrom('request_logs').select('request_id').execute()).map((r) => r.request_id)).toEqual(['req-1', 'req-3']);
    } finally {
      await file.close();
    }
  });

  it('makes no file when nothing is written or read', async () => {
    const made = folder('untouched');
    const file = new RequestLogFile(made);
    await file.append([]);
    await file.close();
    expect(fs.existsSync(path.join(made, REQUEST_LOG_FILE))).toBe(false);
  });
});
