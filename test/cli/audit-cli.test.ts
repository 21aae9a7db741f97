// The audit log from the command line, as real processes on the server's database: a command that
// changes state leaves a record naming the system user who ran it, the command and its arguments,
// and how it ended (a read-only command leaves none); `quipu audit export` writes the records as
// JSON lines and `quipu audit verify` passes an intact chain and fails, naming the record, once one
// is edited.
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quipu } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false' };
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
