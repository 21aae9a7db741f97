// The store on the database under test (SQLite or PostgreSQL): migrations, housekeeping, the
// invalidation feed, sealed secrets and the one-place payment change under concurrency.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { changePayment } from '../../src/app/change-payment.js';
import { createPayment } from '../../src/app/create-payment.js';
import { MERCHANT_TOPIC } from '../../src/app/merchant-directory.js';
import { IllegalTransition } from '../../src/domain/state-machine.js';
import { pruneIdempotencyKeys } from '../../src/store/idempotency.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { insertPayment } from '../../src/store/payments.js';
import { ShiftableClock } from '../../src/runtime/clock.js';
import { InvalidationFeed } from '../../src/runtime/invalidation-feed.js';
import { pruneExpired } from '../../src/app/prune-expired.js';
import { findMerchantRow } from '../../src/store/merchants.js';
import { testDatabaseKind } from '../helpers/database.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('store', () => {
  it('runs migrations once: a second run applies nothing', async () => {
    expect((await migrateToLatest(server.ctx.db)).applied).toEqual([]);
  });

  it('keeps receiver secrets sealed at rest and API keys only as hashes', async () => {
    const account = await server.account();
    const row = (await findMerchantRow(server.ctx.db, account.receiver_id))!;
    expect(row.secret_enc).not.toContain(account.secret);
    expect(server.ctx.secrets.open(row.secret_enc)).toBe(account.secret);
    expect(row.api_key_hash).not.toContain(account.api_key);
    expect(row.api_key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('prunes expired idempotency keys only', async () => {
    const account = await server.account();
    const now = Date.now();
    const key = (idem_key: string, expires_at: number) => ({
      receiver_id: account.receiver_id,
      idem_key,
      request_hash: 'h',
      response_status: 200,
      response_body: '{}',
      locked_until: now,
      expires_at,
    });
    await server.ctx.db
      .insertInto('idempotency_keys')
      .values([key('old', now - 1), key('fresh', now + 60_000)])
      .execute();
    await pruneIdempotencyKeys(server.ctx.db, now);
    const left = await server.ctx.db.selectFrom('idempotency_keys').select('idem_key').where('receiver_id', '=', account.receiver_id).execute();
    expect(left.map((r) => r.idem_key)).toEqual(['fresh']);
  });

  it('housekeeping deletes expired tokens and old flows no live token refers to', async () => {
    const account = await server.account();
    const now = server.ctx.clock.now().getTime();
    const day = 24 * 3_600_000;
    const flow = (authorization_id: string, created_at: number) => ({
      authorization_id,
      receiver_id: account.receiver_id,
      redirect_uri: 'https://app.example/cb',
      response_mode: 'query',
      state: null,
      nonce: null,
      custom: null,
      institution_id: 'Bawdf',
      code_challenge: null,
      code_challenge_method: null,
      status: 'done',
      step_deadline: created_at,
      user_id: null,
      authenticated_at: null,
      consent_id: null,
      code_hash: null,
      code_expires_at: null,
      redeemed_at: null,
      created_at,
    });
    await server.ctx.db
      .insertInto('oauth_authorizations')
      .values([flow('old-unused', now - 2 * day), flow('old-in-use', now - 2 * day), flow('recent', now)])
      .execute();
    const token = (jti: string, authorization_id: string | null, expires_at: number) => ({
      jti,
      receiver_id: account.receiver_id,
      grant_type: 'authorization_code',
      authorization_id,
      consent_id: null,
      issued_at: now - 2 * day,
      expires_at,
      revoked_at: null,
      secret_generation: 0,
      wall_issued_at: now - 2 * day,
    });
    await server.ctx.db
      .insertInto('oauth_tokens')
      .values([token('live', 'old-in-use', now + day), token('expired', null, now - 1)])
      .execute();
    await pruneExpired(server.ctx);
    const flows = await server.ctx.db.selectFrom('oauth_authorizations').select('authorization_id').where('receiver_id', '=', account.receiver_id).execute();
    expect(flows.map((f) => f.authorization_id).sort()).toEqual(['old-in-use', 'recent']);
    const tokens = await server.ctx.db.selectFrom('oauth_tokens').select('jti').where('receiver_id', '=', account.receiver_id).execute();
    expect(tokens.map((t) => t.jti)).toEqual(['live']);
  });

  it('delivers published invalidations to listeners here and through the feed', async () => {
    const seen: string[] = [];
    server.ctx.feed.on('test-topic', (item) => seen.push(item));
    await server.ctx.feed.publish(server.ctx.db, 'test-topic', 'local');
    expect(seen).toEqual(['local']);
    await server.ctx.db.insertInto('invalidations').values({ topic: 'test-topic', item: 'remote', created_at: Date.now() }).execute();
    await server.ctx.feed.poll();
    expect(seen).toContain('remote');
    const before = seen.length;
    await server.ctx.feed.poll();
    expect(seen.length).toBe(before);
    expect(MERCHANT_TOPIC).toBe('merchant');
  });

  it('applies, once the database is back, the invalidations written during an outage longer than the window', async () => {
    let down = false;
    // The feed's view of the database, which refuses every query while it is down.
    const db = new Proxy(server.ctx.db, {
      get(target, key) {
        if (down && key === 'selectFrom') throw new Error('database unavailable');
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const feed = new InvalidationFeed(db, new ShiftableClock(), 100, server.ctx.log);
    const seen: string[] = [];
    feed.on('outage-topic', (item) => seen.push(item));
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const start = Date.now();
      await feed.poll();
      down = true;
      vi.setSystemTime(start + 5_000);
      await expect(feed.poll()).rejects.toThrow('database unavailable');
      // Written by another process 5 s into the outage; read back 60 s in, it is older than the 10 s window.
      await server.ctx.db
        .insertInto('invalidations')
        .values({ topic: 'outage-topic', item: 'revoked meanwhile', created_at: start + 5_000 })
        .execute();
      vi.setSystemTime(start + 60_000);
      await expect(feed.poll()).rejects.toThrow('database unavailable');
      down = false;
      await feed.poll();
      expect(seen).toEqual(['revoked meanwhile']);
      await feed.poll();
      expect(seen).toEqual(['revoked meanwhile']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('applies concurrent changes to one payment one at a time', async () => {
    const account = await server.account();
    const payment = await createPayment(server.ctx, account.merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'race' });
    // Eight concurrent reconciliations: exactly one may move pending → done; the others see done.
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => payByTransfer(server.ctx, account.merchant, payment.paymentId)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(IllegalTransition);
    const row = await server.ctx.db.selectFrom('payments').select(['status', 'version']).where('payment_id', '=', payment.paymentId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'done', version: 2 });
  });

  it('writes payments that arrive together in one batch, failing only the row that breaks a rule', async () => {
    const account = await server.account();
    const template = await createPayment(server.ctx, account.merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'template' });
    const row = await server.ctx.db.selectFrom('payments').selectAll().where('payment_id', '=', template.paymentId).executeTakeFirstOrThrow();
    const fresh = (n: number) => ({ ...row, payment_id: `batch${String(n).padStart(7, '0')}`, notification_token: `${n}`.padStart(64, 'f') });
    const rows = [fresh(1), fresh(2), { ...fresh(3), payment_id: template.paymentId }, fresh(4)];
    const results = await Promise.allSettled(rows.map((r) => insertPayment(server.ctx.db, r)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const stored = await server.ctx.db.selectFrom('payments').select('payment_id').where('payment_id', 'like', 'batch%').execute();
    expect(stored.map((r) => r.payment_id).sort()).toEqual(['batch0000001', 'batch0000002', 'batch0000004']);
  });

  it('rolls back every write of a change that fails halfway', async () => {
    const account = await server.account();
    const payment = await createPayment(server.ctx, account.merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'rollback' });
    const refundsBefore = await countRows(server.ctx.db, 'refunds');
    await expect(
      changePayment(server.ctx, account.receiver_id, payment.paymentId, () => ({
        fields: { subject: 'changed' },
        also: async () => {
          throw new Error('the second write fails');
        },
      })),
    ).rejects.toThrow('the second write fails');
    const row = await server.ctx.db.selectFrom('payments').select(['subject', 'version']).where('payment_id', '=', payment.paymentId).executeTakeFirstOrThrow();
    expect(row).toEqual({ subject: 'rollback', version: 1 });
    expect(await countRows(server.ctx.db, 'refunds')).toBe(refundsBefore);
  });

  it('enforces the refund ceiling in the database itself', async () => {
    const account = await server.account();
    const payment = await createPayment(server.ctx, account.merchant, 'v3', { amount: 1000, currency: 'CLP', subject: 'ceiling' });
    await expect(
      server.ctx.db
        .updateTable('payments')
        .set({ refunded: payment.amount + 1 })
        .where('payment_id', '=', payment.paymentId)
        .execute(),
    ).rejects.toThrow();
  });
});

describe.skipIf(testDatabaseKind() === 'sqlite')('PostgreSQL connections', () => {
  it('survives the server cutting its idle connections, and answers on fresh ones', async () => {
    await server.ctx.db.selectFrom('merchants').select('receiver_id').execute();
    const admin = new pg.Client({ connectionString: server.database.url });
    await admin.connect();
    const cut = await admin.query(
      'select pg_terminate_backend(pid) as cut from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    await admin.end();
    expect(cut.rowCount).toBeGreaterThan(0);
    // The pool hears of each cut connection as an error event; the process must carry on.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await countRows(server.ctx.db, 'merchants')).toBeGreaterThanOrEqual(0);
  });
});
