// The audit log from the command line, as real processes on the server's database: a command that
// changes state leaves a record naming the system user who ran it, the command and its arguments,
// and how it ended (a read-only command leaves none); `quipu audit export` writes the records as
// JSON lines and `quipu audit verify` passes an intact chain and fails, naming the record, once one
// is edited. The installation's first records date from before the retention period: the hourly
// prune removes them and anchors the chain where it cut, and verify passes; records removed
// straight from the table at the start of the chain (with the anchor, or with an anchor made up
// for them) are found.
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_RETENTION_MS, pruneAuditLog } from '../../src/app/audit.js';
import { appendAudit } from '../../src/store/audit-log.js';
import { quipu } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;

const DAY = 86_400_000;
/** Records written a day past the retention period, before anything else: an installation running for more than that. */
const OLD_RECORDS = 3;

beforeAll(async () => {
  server = await startTestServer();
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false' };
  for (let i = 0; i < OLD_RECORDS; i++)
    await appendAudit(server.ctx.db, {
      at: Date.now() - AUDIT_RETENTION_MS - DAY + i,
      actorKind: 'user',
      actor: 'owner@long-ago.test',
      receiverId: null,
      action: 'sign-in',
      target: null,
      outcome: 'ok',
      address: '10.0.0.1',
    });
});
afterAll(async () => server?.close());

const exported = async () =>
  (await quipu(['audit', 'export'], env)).stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('quipu audit', () => {
  it('records the commands that change state, with who ran them and how they ended', async () => {
    const created = JSON.parse((await quipu(['merchants', 'create', '--name', 'Audited', '--email', 'boss@audited.example', '--json'], env)).stdout);
    expect((await quipu(['users', 'set-role', 'nobody@audited.example', 'viewer'], env)).code).toBe(2);
    expect((await quipu(['merchants', 'list', '--json'], env)).code).toBe(0);
    const records = (await exported()).filter((r) => r.action === 'cli.command');
    expect(records.map((r) => [r.actorKind, r.actor, r.target, r.outcome])).toEqual([
      ['cli', os.userInfo().username, 'merchants create', 'ok'],
      ['cli', os.userInfo().username, 'users set-role nobody@audited.example viewer', 'refused'],
    ]);
    expect(created.receiver_id).toBeGreaterThan(0);
  });

  it('verify passes a chain the prune cut, and names its cut', async () => {
    expect((await exported()).slice(0, OLD_RECORDS).map((r) => r.seq)).toEqual([1, 2, 3]);
    // The audit log's part of the hourly prune-expired job.
    await pruneAuditLog(server.ctx);
    expect((await exported())[0].seq).toBe(OLD_RECORDS + 1);
    const verified = await quipu(['audit', 'verify'], env);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^audit log: \d+ records, chain intact \(records dated before \d{4}-\d\d-\d\dT[\d:.]+Z pruned\)$/m);
  });

  it('verify names records removed from the start of the chain, with or without an anchor made up for them', async () => {
    // All but the newest record removed, as the security review did.
    const records = await exported();
    const removed = records.slice(0, -1);
    const last = removed.at(-1);
    const rows = await server.ctx.db.selectFrom('audit_log').selectAll().where('seq', '<=', last.seq).execute();
    const anchor = await server.ctx.db.selectFrom('settings').selectAll().where('name', '=', 'audit.anchor').executeTakeFirstOrThrow();
    await server.ctx.db.deleteFrom('audit_log').where('seq', '<=', last.seq).execute();
    try {
      const cut = await quipu(['audit', 'verify'], env);
      expect(cut.code).toBe(1);
      expect(cut.stderr).toContain(`audit log broken at record ${last.seq + 1}: records removed before it, not by a prune`);

      // The last record removed made the anchor, as a prune would: it is minutes old, and its date is in its hash.
      const madeUp = JSON.stringify({ record: last, cut: Date.now() - AUDIT_RETENTION_MS });
      await server.ctx.db.updateTable('settings').set({ value: madeUp }).where('name', '=', 'audit.anchor').execute();
      const forged = await quipu(['audit', 'verify'], env);
      expect(forged.code).toBe(1);
      expect(forged.stderr).toContain(`audit log broken at record ${last.seq}: pruned before its retention period ended`);
    } finally {
      await server.ctx.db.insertInto('audit_log').values(rows).execute();
      await server.ctx.db.updateTable('settings').set({ value: anchor.value }).where('name', '=', 'audit.anchor').execute();
    }
    expect((await quipu(['audit', 'verify'], env)).code).toBe(0);
  });

  it("verify names the first record when the prune's anchor is removed", async () => {
    const anchor = await server.ctx.db.selectFrom('settings').selectAll().where('name', '=', 'audit.anchor').executeTakeFirstOrThrow();
    await server.ctx.db.deleteFrom('settings').where('name', '=', 'audit.anchor').execute();
    try {
      const removed = await quipu(['audit', 'verify'], env);
      expect(removed.code).toBe(1);
      expect(removed.stderr).toContain(`audit log broken at record ${OLD_RECORDS + 1}: records removed before it, not by a prune`);
    } finally {
      await server.ctx.db.insertInto('settings').values(anchor).execute();
    }
    expect((await quipu(['audit', 'verify'], env)).code).toBe(0);
  });

  it('verify passes an intact chain and names the first record edited', async () => {
    const intact = await quipu(['audit', 'verify'], env);
    expect(intact.code).toBe(0);
    expect(intact.stdout).toMatch(/audit log: \d+ records, chain intact/);
    const [first] = await exported();
    await server.ctx.db.updateTable('audit_log').set({ target: 'merchants list' }).where('seq', '=', first.seq).execute();
    const broken = await quipu(['audit', 'verify'], env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`audit log broken at record ${first.seq}: edited`);
  });
});
