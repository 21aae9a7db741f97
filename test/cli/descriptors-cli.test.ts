// The descriptor key ring and descriptors from the command line, as real processes on the database
// of a running test server: `quipu keys rotate --descriptors` seals later descriptors with a new
// key while earlier ones still open; `quipu descriptors show` decrypts by id or by the descriptor,
// in developer mode only; and `quipu serve` refuses to start, in one line, when a key of the ring
// does not open with QUIPU_ENCRYPTION_KEY or the key of an operation still open is missing, while
// `quipu worker`, which opens no descriptor, starts.
import { beforeAll, describe, expect, it } from 'vitest';
import { readEnvelope } from '../../src/domain/operation-descriptor.js';
import { issueOperation } from '../helpers/operations.js';
import { quipu, startServerProcess } from '../helpers/process.js';
import { useTestServer } from '../helpers/server.js';

let env: Record<string, string>;

const setup = useTestServer();
beforeAll(() => {
  env = { DATABASE_URL: setup.server.database.url, DATA_DIR: setup.server.database.dataDir, LOG_LEVEL: 'warn', PORT: '0', DEMO_ACCOUNT: 'false' };
});

const PROCESSES = { timeout: 120_000 };

/** The one line the command refused with (stderr may name the database first), without a stack trace. */
async function refusal(command: string, settings: Record<string, string>): Promise<string> {
  const result = await quipu([command], settings);
  expect(result.code).toBe(2);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines.filter((line) => line.startsWith('quipu:'))).toHaveLength(1);
  expect(lines.some((line) => /^\s+at /.test(line))).toBe(false);
  return lines.at(-1)!;
}

describe('quipu keys rotate --descriptors and quipu descriptors show', PROCESSES, () => {
  it('rotates the ring; descriptors sealed before and after both show decrypted', async () => {
    const before = await issueOperation(setup.server.baseUrl, setup.account.api_key);
    const rotated = await quipu(['keys', 'rotate', '--descriptors', '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const rotation = JSON.parse(rotated.stdout);
    expect(rotation.retired).toEqual([readEnvelope(before.description)!.k]);
    // The server hears of the new key through the invalidation feed; a new descriptor waits for nothing.
    const after = await issueOperation(setup.server.baseUrl, setup.account.api_key);
    expect([rotation.kid, readEnvelope(before.description)!.k]).toContain(readEnvelope(after.description)!.k);
    for (const ref of [before.id, after.description]) {
      const shown = await quipu(['descriptors', 'show', ref, '--json'], env);
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        receiver_id: setup.account.receiver_id,
        bank: 'Bawdf',
        params: { target_account_number: '123459876', amount: 15000 },
      });
    }
  });

  it('refuses in a production installation, and names an unknown or altered descriptor', async () => {
    const op = await issueOperation(setup.server.baseUrl, setup.account.api_key);
    const production = await quipu(['descriptors', 'show', op.id], { ...env, SANDBOX: 'false' });
    expect(production.code).toBe(2);
    expect(production.stderr).toContain('only in developer mode');
    expect(production.stdout).toBe('');
    const altered = await quipu(['descriptors', 'show', `${op.description.slice(0, -4)}AAAA`], env);
    expect(altered.code).toBe(2);
    expect(altered.stderr).toContain('Operation not found');
  });
});

/** Deletes the key of a new operation that has not expired, for the time of `work`. */
async function withoutAnOpenOperationsKey(work: (kid: string) => Promise<void>): Promise<void> {
  const op = await issueOperation(setup.server.baseUrl, setup.account.api_key);
  const kid = readEnvelope(op.description)!.k;
  const saved = await setup.server.ctx.db.selectFrom('descriptor_keys').selectAll().where('kid', '=', kid).executeTakeFirstOrThrow();
  await setup.server.ctx.db.deleteFrom('descriptor_keys').where('kid', '=', kid).execute();
  try {
    await work(kid);
  } finally {
    await setup.server.ctx.db.insertInto('descriptor_keys').values(saved).execute();
  }
}

describe('quipu serve with a broken descriptor key ring', () => {
  it('refuses to start when a key does not open with QUIPU_ENCRYPTION_KEY', PROCESSES, async () => {
    await issueOperation(setup.server.baseUrl, setup.account.api_key);
    const line = await refusal('serve', { ...env, QUIPU_ENCRYPTION_KEY: 'ab'.repeat(32) });
    expect(line).toMatch(/^quipu: refusing to start: descriptor key [0-9a-f]{16}(, [0-9a-f]{16})* cannot be opened with this QUIPU_ENCRYPTION_KEY$/);
  });

  it('refuses to start when the key of an operation that has not expired is missing', PROCESSES, async () => {
    await withoutAnOpenOperationsKey(async (kid) => {
      const line = await refusal('serve', env);
      expect(line).toBe(`quipu: refusing to start: descriptor key ${kid} of operations that have not expired is missing from the key ring`);
    });
  });
});

describe('quipu worker with a broken descriptor key ring', () => {
  it('starts: delivery and the jobs open no descriptor', PROCESSES, async () => {
    await withoutAnOpenOperationsKey(async () => {
      const worker = startServerProcess({ ...env, LOG_LEVEL: 'info' }, ['worker']);
      try {
        await worker.waitFor('background jobs started', 60_000);
      } finally {
        await worker.stop();
      }
    });
  });
});
