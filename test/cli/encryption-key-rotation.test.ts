// Replacing QUIPU_ENCRYPTION_KEY (docs/security.md, key lifecycle): everything sealed with key A (a
// receiver secret and the one it replaced, the API key shown again, a TOTP secret, an OAuth
// signing key, a descriptor key, an idempotent request's stored answer) keeps working once B is
// the key and A is QUIPU_ENCRYPTION_KEY_PREVIOUS; `quipu keys reseal` seals every value with B,
// reports what it did, does nothing the second time and is audited; then A can go and everything
// still works: API keys, v2 signatures and OAuth with the secret, notifications signed with it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { createMerchant } from '../../src/app/create-merchant.js';
import { enrolTwoFactor } from '../../src/app/two-factor-enrolment.js';
import { updateMerchant } from '../../src/app/update-merchant.js';
import { loadConfig } from '../../src/config.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { keyIdOf, parseKey, SecretBox } from '../../src/runtime/secret-box.js';
import { SEALED_COLUMNS } from '../../src/store/sealed-values.js';
import { CHOSEN_PASSWORD } from '../helpers/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { reconciledPaymentIn } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { eventually, signedBy, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { basicAuth, formPost } from '../helpers/oauth.js';
import { freePort, quipu, startServerProcess, waitForHttp, type ServerProcess } from '../helpers/process.js';
import { v2Client } from '../helpers/v2-clients.js';

const KEY_A = randomBytes(32).toString('hex');
const KEY_B = randomBytes(32).toString('base64');
const HOUR = 3_600_000;
const PROCESSES = { timeout: 180_000 };

let database: TestDatabase;
let receiver: Receiver;
let base: Record<string, string>;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver();
  base = {
    DATABASE_URL: database.url,
    DATA_DIR: database.dataDir,
    LOG_LEVEL: 'warn',
    DEMO_ACCOUNT: 'false',
    DELIVERY_POLL_MS: '50',
    INVALIDATION_POLL_MS: '100',
  };
});
afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL');
  await receiver?.close();
  await database?.drop();
});

const ring = (current: string, previous?: string) => ({
  ...base,
  QUIPU_ENCRYPTION_KEY: current,
  ...(previous ? { QUIPU_ENCRYPTION_KEY_PREVIOUS: previous } : {}),
});

async function withRuntime<T>(env: Record<string, string>, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = await startRuntime(loadConfig(env), createLogger('silent', 2));
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

async function serve(env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = startServerProcess({ ...env, PORT: String(port), PUBLIC_BASE_URL: baseUrl });
  servers.push(server);
  await waitForHttp(`${baseUrl}/healthz`);
  return baseUrl;
}

async function stopServers(): Promise<void> {
  for (const server of servers.splice(0)) await server.stop();
}

/** Every sealed value stored, as text. */
async function sealedValues(runtime: Runtime): Promise<string[]> {
  const values: string[] = [];
  const db = runtime.ctx.db as unknown as import('kysely').Kysely<any>;
  for (const at of SEALED_COLUMNS) {
    const rows: Record<string, unknown>[] = await db.selectFrom(at.table).select(at.column).where(at.column, 'is not', null).execute();
    values.push(...rows.map((row) => String(row[at.column])));
  }
  return values;
}

describe('replacing QUIPU_ENCRYPTION_KEY', () => {
  const account = { receiverId: 0, apiKey: '', secret: '', previousSecret: '' };
  const idempotent = { key: 'order-77', paymentId: '' };

  /** What every phase checks, over HTTP against a `quipu serve` with `env`. */
  async function everythingWorks(env: Record<string, string>): Promise<void> {
    const baseUrl = await serve(env);
    const api = client(baseUrl, account.apiKey);
    expect((await api.get('/v3/banks')).status).toBe(200);
    const v2 = (secret: string) =>
      v2Client('php', { receiver_id: account.receiverId, secret }, { networkUrl: baseUrl, signedBase: `${baseUrl}/2.0`, prefix: '/2.0' }).request(
        'GET',
        '/banks',
      );
    expect([(await v2(account.secret)).status, (await v2(account.previousSecret)).status]).toEqual([200, 200]);
    const token = await formPost(
      baseUrl,
      '/oauth2/token',
      { grant_type: 'client_credentials' },
      basicAuth({ receiver_id: account.receiverId, secret: account.secret }),
    );
    expect(token.status).toBe(200);
    const bearer = await fetch(`${baseUrl}/v3/banks`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    expect(bearer.status).toBe(200);
    const replay = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Order 77' }, { 'idempotency-key': idempotent.key });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.payment_id]).toEqual([200, 'true', idempotent.paymentId]);
    // A notification, signed with the receiver's secret by the server's worker.
    const sent = receiver.requests.length;
    const paymentId = await withRuntime(
      env,
      async ({ ctx }) => (await reconciledPaymentIn(ctx, (await ctx.merchants.byReceiverId(account.receiverId))!)).paymentId,
    );
    await receiver.waitFor((requests) => requests.slice(sent).some((r) => r.body.includes(paymentId)));
    const notification = receiver.requests.slice(sent).find((r) => r.body.includes(paymentId))!;
    expect(signedBy(account.secret, notification)).toBe(true);
    await stopServers();
    // Every stored secret opens with this ring.
    await withRuntime(env, async (runtime) => {
      for (const sealed of await sealedValues(runtime)) expect(() => runtime.ctx.secrets.open(sealed)).not.toThrow();
    });
  }

  it('seals with A; with B and A previous everything works; reseal; without A everything still works', PROCESSES, async () => {
    await withRuntime(ring(KEY_A), async ({ ctx }) => {
      const { credentials } = await createMerchant(ctx, { name: 'Rotating shop', developer: true, notifyUrl: receiver.url, users: ['owner@rotating.test'] });
      const { merchant } = await updateMerchant(ctx, credentials.receiver_id, { rotateSecret: true, graceMs: HOUR });
      Object.assign(account, { receiverId: credentials.receiver_id, apiKey: credentials.api_key, secret: merchant.secret, previousSecret: credentials.secret });
      await addDashboardUser(ctx, credentials.receiver_id, { email: 'owner@rotating.test', password: CHOSEN_PASSWORD });
      await enrolTwoFactor(ctx, 'owner@rotating.test');
      await ctx.descriptorKeys.rotate();
    });
    const baseUrl = await serve(ring(KEY_A));
    expect(
      (await formPost(baseUrl, '/oauth2/token', { grant_type: 'client_credentials' }, basicAuth({ receiver_id: account.receiverId, secret: account.secret })))
        .status,
    ).toBe(200);
    const created = await client(baseUrl, account.apiKey).post(
      '/v3/payments',
      { amount: 1000, currency: 'CLP', subject: 'Order 77' },
      { 'idempotency-key': idempotent.key },
    );
    expect(created.status).toBe(200);
    idempotent.paymentId = created.body.payment_id;
    await stopServers();

    const sealedWithA = await withRuntime(ring(KEY_A), sealedValues);
    // Merchant secret, previous secret and API key; TOTP secret; signing key; descriptor key; stored answer.
    expect(sealedWithA.length).toBeGreaterThanOrEqual(7);
    expect(sealedWithA.every((value) => value.startsWith(`v2:${keyIdOf(parseKey(KEY_A))}:`))).toBe(true);
    // B alone opens none of them: A must stay in the ring until they are resealed.
    expect(() => new SecretBox(parseKey(KEY_B)).open(sealedWithA[0]!)).toThrow(/not in the key ring/);

    await everythingWorks(ring(KEY_B, KEY_A));

    const first = await quipu(['keys', 'reseal', '--json'], ring(KEY_B, KEY_A));
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as { keyId: string; columns: { column: string; resealed: number; unopenable: number; left: number }[] };
    expect(report.keyId).toBe(keyIdOf(parseKey(KEY_B)));
    expect(report.columns.map((c) => c.column)).toEqual(SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`));
    const resealed = Object.fromEntries(report.columns.map((c) => [c.column, c.resealed]));
    expect(resealed).toMatchObject({
      'merchants.secret_enc': 1,
      'merchants.previous_secret_enc': 1,
      'merchants.api_key_enc': 1,
      'dashboard_users.totp_secret_enc': 1,
      'oauth_keys.private_key_enc': 1,
      'descriptor_keys.key_enc': 1,
    });
    expect(resealed['idempotency_keys.response_body']).toBeGreaterThanOrEqual(1);
    expect(report.columns.every((c) => c.left === 0 && c.unopenable === 0)).toBe(true);

    const again = await quipu(['keys', 'reseal'], ring(KEY_B, KEY_A));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`every stored secret is sealed with key ${report.keyId}`);
    expect(
      again.stdout
        .split('\n')
        .filter((line) => line.includes('resealed'))
        .every((line) => line.endsWith('resealed 0')),
    ).toBe(true);

    await withRuntime(ring(KEY_B), async (runtime) => {
      const values = await sealedValues(runtime);
      expect(values.length).toBe(sealedWithA.length);
      expect(values.every((value) => value.startsWith(`v2:${report.keyId}:`))).toBe(true);
      expect(() => new SecretBox(parseKey(KEY_A)).open(values[0]!)).toThrow(/not in the key ring/);
      const audited = await runtime.ctx.db
        .selectFrom('audit_log')
        .select(['actor_kind', 'target', 'outcome'])
        .where('action', '=', 'cli.command')
        .where('target', '=', 'keys reseal')
        .execute();
      expect(audited).toEqual([
        { actor_kind: 'cli', target: 'keys reseal', outcome: 'ok' },
        { actor_kind: 'cli', target: 'keys reseal', outcome: 'ok' },
      ]);
    });

    await everythingWorks(ring(KEY_B));
  });

  it('refuses to report done while a value opens with no key of the ring, and changes nothing of it', PROCESSES, async () => {
    const stranger = randomBytes(32).toString('hex');
    const lost = new SecretBox(parseKey(stranger)).seal('a secret nobody can open');
    await withRuntime(ring(KEY_B), async ({ ctx }) => {
      await ctx.db.updateTable('merchants').set({ api_key_enc: lost }).where('receiver_id', '=', account.receiverId).execute();
    });
    const result = await quipu(['keys', 'reseal'], ring(KEY_B));
    expect(result.code).not.toBe(0);
    expect(result.stdout).toContain('merchants.api_key_enc  resealed 0, 1 left under another key (1 open with no key of the ring)');
    expect(result.stderr).toContain(`stored secrets not sealed with key ${keyIdOf(parseKey(KEY_B))}: 1; keep QUIPU_ENCRYPTION_KEY_PREVIOUS and run it again`);
    await withRuntime(ring(KEY_B), async ({ ctx }) => {
      const row = await ctx.db.selectFrom('merchants').select('api_key_enc').where('receiver_id', '=', account.receiverId).executeTakeFirstOrThrow();
      expect(row.api_key_enc).toBe(lost);
    });
  });
});
