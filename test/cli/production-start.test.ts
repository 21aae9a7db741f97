// A production installation (SANDBOX=false) that lacks its collection account, its encryption key,
// an https address, the dashboard's own host or a log destination does not start its server nor its workers: each says, in one line, every
// setting it misses. With all of them set both start; one-shot commands never refuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { quipu, serveOnFreePort, type ServerProcess, startServerProcess } from '../helpers/process.js';
import { COLLECTION_SETTINGS, PRODUCTION_SETTINGS } from '../helpers/production.js';

let database: TestDatabase;
let env: Record<string, string>;
const started: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', PORT: '0' };
});
afterAll(async () => {
  for (const p of started) await p.stop();
  await database?.drop();
});

const without = (...names: string[]) => ({ ...env, ...Object.fromEntries(Object.entries(PRODUCTION_SETTINGS).filter(([name]) => !names.includes(name))) });
const COLLECTION =
  'the collection account (COLLECTION_BANK_ID, COLLECTION_ACCOUNT_TYPE, COLLECTION_ACCOUNT_NUMBER, COLLECTION_HOLDER_NAME, COLLECTION_HOLDER_RUT, at a bank other than DemoBank)';

const DASHBOARD = 'DASHBOARD_BASE_URL (the dashboard on a host of its own)';
const LOGS = 'LOG_DESTINATION (a collector such as tls://logs.example:6514, or stdout where the platform ships standard output off this machine)';

async function refusal(command: string, settings: Record<string, string>): Promise<string> {
  const result = await quipu([command], settings);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe.each(['serve', 'worker'])('quipu %s with SANDBOX=false', (command) => {
  it('names every missing setting in one line and does not start', async () => {
    expect(await refusal(command, { ...env, SANDBOX: 'false' })).toBe(
      `quipu: refusing to start: SANDBOX=false needs ${COLLECTION}; QUIPU_ENCRYPTION_KEY; an https PUBLIC_BASE_URL; ${DASHBOARD}; ${LOGS}`,
    );
    expect(await refusal(command, without('DASHBOARD_BASE_URL'))).toBe(`quipu: refusing to start: SANDBOX=false needs ${DASHBOARD}`);
    expect(await refusal(command, without('LOG_DESTINATION'))).toBe(`quipu: refusing to start: SANDBOX=false needs ${LOGS}`);
    expect(await refusal(command, without(...Object.keys(COLLECTION_SETTINGS)))).toBe(`quipu: refusing to start: SANDBOX=false needs ${COLLECTION}`);
    expect(await refusal(command, without('QUIPU_ENCRYPTION_KEY_FILE'))).toBe('quipu: refusing to start: SANDBOX=false needs QUIPU_ENCRYPTION_KEY');
    expect(await refusal(command, { ...without(), PUBLIC_BASE_URL: 'http://pay.example' })).toBe(
      'quipu: refusing to start: SANDBOX=false needs an https PUBLIC_BASE_URL',
    );
    expect(await refusal(command, without('PUBLIC_BASE_URL'))).toBe('quipu: refusing to start: SANDBOX=false needs an https PUBLIC_BASE_URL');
    expect(await refusal(command, { ...without(), COLLECTION_BANK_ID: 'Bawdf' })).toBe(`quipu: refusing to start: SANDBOX=false needs ${COLLECTION}`);
  }, 120_000);

  it('reports a collection account given in part in one line, without a stack trace', async () => {
    expect(await refusal(command, without('COLLECTION_HOLDER_RUT'))).toBe(
      'quipu: refusing to start: COLLECTION_BANK_ID, COLLECTION_ACCOUNT_TYPE, COLLECTION_ACCOUNT_NUMBER, COLLECTION_HOLDER_NAME set without COLLECTION_HOLDER_RUT: the collection account needs all five',
    );
  }, 60_000);
});

describe('a production installation with every setting', () => {
  it('serves and runs its workers', async () => {
    const server = await serveOnFreePort(without(), started);
    await server.waitFor('quipu is listening');
    const worker = startServerProcess(without(), ['worker']);
    started.push(worker);
    await worker.waitFor('background jobs started');
  }, 90_000);

  it('keeps one-shot commands working while settings are missing', async () => {
    const migrate = await quipu(['migrate'], { ...env, SANDBOX: 'false' });
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain('database is up to date');
    const merchants = await quipu(['merchants', 'list', '--json'], { ...env, SANDBOX: 'false' });
    expect(merchants.code).toBe(0);
  }, 60_000);
});

describe('a sandbox installation', () => {
  it('starts without any of the production settings', async () => {
    const server = await serveOnFreePort({ ...env, DEMO_ACCOUNT: 'false' }, started);
    await server.waitFor('quipu is listening');
  }, 60_000);
});
