// The `quipu` command line and `npm start`'s server, as real processes on the database under test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { freePort, quipu, startServerProcess } from '../helpers/process.js';

let database: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn' };
});
afterAll(async () => database?.drop());

describe('quipu CLI', () => {
  it('creates accounts and prints their credentials as one JSON object', async () => {
    const dev = await quipu(['merchants', 'create', '--name', 'Shop', '--json', '--refunds', '--contract-url', '--user', 'a@shop.example'], env);
    expect(dev.code).toBe(0);
    const created = JSON.parse(dev.stdout);
    expect(created).toEqual({
      receiver_id: expect.any(Number),
      secret: expect.stringMatching(/^[0-9a-f]{40}$/),
      api_key: expect.stringMatching(/^[0-9a-f-]{36}$/),
      developer: true,
      email: `owner-${created.receiver_id}@quipu.local`,
      password: expect.stringMatching(/^[A-Za-z0-9]{22}$/),
    });
    const prod = JSON.parse((await quipu(['merchants', 'create', '--name', 'Real shop', '--production', '--json'], env)).stdout);
    expect(prod.developer).toBe(false);

    const shown = JSON.parse((await quipu(['merchants', 'show', String(created.receiver_id), '--json'], env)).stdout);
    expect(shown).toMatchObject({
      receiver_id: created.receiver_id,
      name: 'Shop',
      developer: true,
      users: ['a@shop.example'],
      features: { refunds: true, contractUrl: true, confirm: false, integrator: false, psp: false },
    });
    expect(shown.secret).toBeUndefined();
    const withSecret = JSON.parse((await quipu(['merchants', 'show', String(created.receiver_id), '--json', '--show-secret'], env)).stdout);
    expect(withSecret.secret).toBe(created.secret);

    const list = JSON.parse((await quipu(['merchants', 'list', '--json'], env)).stdout);
    expect(list.map((m: { receiver_id: number }) => m.receiver_id)).toEqual(expect.arrayContaining([created.receiver_id, prod.receiver_id]));

    const updated = JSON.parse(
      (await quipu(['merchants', 'update', String(created.receiver_id), '--confirm', '--no-refunds', '--notify-url', 'https://shop.example/n', '--json'], env))
        .stdout,
    );
    expect(updated).toMatchObject({ features: { confirm: true, refunds: false, contractUrl: true }, notify_url: 'https://shop.example/n' });
  });

  it('explains bad arguments and unknown accounts without a stack trace', async () => {
    const missing = await quipu(['merchants', 'show', '123'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Merchant not found');
    const badUrl = await quipu(['merchants', 'create', '--name', 'x', '--notify-url', 'nope'], env);
    expect(badUrl.code).not.toBe(0);
    expect(badUrl.stderr).toContain('not an http(s) URL');
    const noName = await quipu(['merchants', 'create'], env);
    expect(noName.code).not.toBe(0);
    expect(noName.stderr).toContain('--name');
  });

  it('runs migrations on demand', async () => {
    const res = await quipu(['migrate'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('up to date');
  });
});

describe('quipu serve (npm start)', () => {
  it('creates a demo account on an empty database, prints credentials that work, and sees CLI key rotation', async () => {
    const fresh = await createTestDatabase();
    const port = await freePort();
    const server = startServerProcess({ DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, PORT: String(port), LOG_LEVEL: 'warn' });
    try {
      const out = await server.waitFor(/api_key\s+\S+/);
      const apiKey = /api_key\s+(\S+)/.exec(out)![1]!;
      const receiverId = /receiver_id\s+(\d+)/.exec(out)![1]!;
      await server.waitFor(`http://localhost:${port}/docs`);
      const base = `http://127.0.0.1:${port}`;
      await expect.poll(async () => (await call(base, 'GET', '/readyz').catch(() => ({ status: 0 }))).status, { timeout: 15_000 }).toBe(200);
      const banks = await call(base, 'GET', '/v3/banks', { apiKey });
      expect(banks.status).toBe(200);
      expect(banks.body.banks.some((b: { bank_id: string }) => b.bank_id === 'Bawdf')).toBe(true);

      // Another process rotates the key: the running server stops accepting the old one.
      const rotated = await quipu(['merchants', 'update', receiverId, '--rotate-api-key', '--json'], {
        DATABASE_URL: fresh.url,
        DATA_DIR: fresh.dataDir,
        LOG_LEVEL: 'warn',
      });
      const newKey = JSON.parse(rotated.stdout).api_key;
      await expect.poll(async () => (await call(base, 'GET', '/v3/banks', { apiKey })).status, { timeout: 10_000 }).toBe(401);
      expect((await call(base, 'GET', '/v3/banks', { apiKey: newKey })).status).toBe(200);

      // Rotated again with a grace period: the replaced key works beside the new one meanwhile.
      const graced = await quipu(['merchants', 'update', receiverId, '--rotate-api-key', '--rotate-secret', '--grace', '2h', '--json'], {
        DATABASE_URL: fresh.url,
        DATA_DIR: fresh.dataDir,
        LOG_LEVEL: 'warn',
      });
      const { api_key: latestKey, secret } = JSON.parse(graced.stdout);
      expect(secret).toMatch(/^[0-9a-f]{40}$/);
      await expect.poll(async () => (await call(base, 'GET', '/v3/banks', { apiKey: latestKey })).status, { timeout: 10_000 }).toBe(200);
      expect((await call(base, 'GET', '/v3/banks', { apiKey: newKey })).status).toBe(200);
      const tooLong = await quipu(['merchants', 'update', receiverId, '--rotate-api-key', '--grace', '31d'], {
        DATABASE_URL: fresh.url,
        DATA_DIR: fresh.dataDir,
        LOG_LEVEL: 'warn',
      });
      expect(tooLong.stderr).toContain('grace: must be between 0 and 30 days');
    } finally {
      await server.stop();
      await fresh.drop();
    }
  });

  it('does not create a second demo account on restart', async () => {
    const fresh = await createTestDatabase();
    const env2 = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, LOG_LEVEL: 'info' };
    try {
      for (let i = 0; i < 2; i++) {
        const server = startServerProcess({ ...env2, PORT: String(await freePort()) });
        await server.waitFor('quipu is listening');
        await server.stop();
        if (i === 1) expect(server.output()).not.toContain('demo account');
      }
      const list = JSON.parse((await quipu(['merchants', 'list', '--json'], env2)).stdout);
      expect(list).toHaveLength(1);
    } finally {
      await fresh.drop();
    }
  });
});
