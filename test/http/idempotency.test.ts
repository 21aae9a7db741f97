// Idempotency-Key on POST: replays, conflicts and reuse with another body.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { countRows, payByTransfer } from '../helpers/payments.js';
import { validReceiver } from '../helpers/receivers.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  account = await server.account({ features: { refunds: true } });
});
afterAll(async () => server?.close());

const body = { amount: 1000, currency: 'CLP', subject: 'Order' };

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, creating one payment', async () => {
    const api = client(server.baseUrl, account.api_key);
    const before = await countRows(server.ctx.db, 'payments');
    const first = await api.post('/v3/payments', body, { 'idempotency-key': 'order-1' });
    const second = await api.post('/v3/payments', body, { 'idempotency-key': 'order-1' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before + 1);
  });

  it('refuses the same key with a different body with 422', async () => {
    const api = client(server.baseUrl, account.api_key);
    await api.post('/v3/payments', body, { 'idempotency-key': 'order-2' });
    const other = await api.post('/v3/payments', { ...body, amount: 2000 }, { 'idempotency-key': 'order-2' });
    expect(other.status).toBe(422);
    expect(other.body.status).toBe(422);
  });

  it('answers 409 with Retry-After while the first request is still running, and runs it once', async () => {
    const api = client(server.baseUrl, account.api_key);
    const before = await countRows(server.ctx.db, 'payments');
    const results = await Promise.all(Array.from({ length: 8 }, () => api.post('/v3/payments', body, { 'idempotency-key': 'order-3' })));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    for (const r of results.filter((r) => r.status === 409)) expect(r.headers.get('retry-after')).toBe('1');
    const ids = new Set(results.filter((r) => r.status === 200).map((r) => r.body.payment_id));
    expect(ids.size).toBe(1);
    // One request ran; every other 200 is a replay of its answer.
    expect(results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before + 1);
  });

  it('keeps keys per account', async () => {
    const other = await server.account();
    const mine = await client(server.baseUrl, account.api_key).post('/v3/payments', body, { 'idempotency-key': 'shared-key' });
    const theirs = await client(server.baseUrl, other.api_key).post('/v3/payments', body, { 'idempotency-key': 'shared-key' });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.payment_id).not.toBe(mine.body.payment_id);
  });

  it('releases the key when the request fails, so a corrected retry runs', async () => {
    const api = client(server.baseUrl, account.api_key);
    const before = await countRows(server.ctx.db, 'payments');
    const bad = await api.post('/v3/payments', { ...body, currency: 'XYZ' }, { 'idempotency-key': 'order-4' });
    expect(bad.status).toBe(400);
    expect(await countRows(server.ctx.db, 'payments')).toBe(before);
    const fixed = await api.post('/v3/payments', body, { 'idempotency-key': 'order-4' });
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays a refund instead of refunding twice', async () => {
    const api = client(server.baseUrl, account.api_key);
    const created = await api.post('/v3/payments', { ...body, amount: 1000 });
    await payByTransfer(server.ctx, account.merchant, created.body.payment_id);
    const path = `/v3/payments/${created.body.payment_id}/refunds`;
    const first = await api.post(path, { amount: 400 }, { 'idempotency-key': 'refund-1' });
    const again = await api.post(path, { amount: 400 }, { 'idempotency-key': 'refund-1' });
    expect(first.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const refunds = await server.ctx.db.selectFrom('refunds').selectAll().where('payment_id', '=', created.body.payment_id).execute();
    expect(refunds).toHaveLength(1);
    // Same key, same body, other payment: a different request.
    const other = await api.post('/v3/payments', body);
    await payByTransfer(server.ctx, account.merchant, other.body.payment_id);
    expect((await api.post(`/v3/payments/${other.body.payment_id}/refunds`, { amount: 400 }, { 'idempotency-key': 'refund-1' })).status).toBe(422);
  });

  it('refuses a key longer than 255 characters', async () => {
    const res = await client(server.baseUrl, account.api_key).post('/v3/payments', body, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('Idempotency-Key');
  });

  it('lets a claim whose request died be taken over once its lock lapses', async () => {
    const api = client(server.baseUrl, account.api_key);
    const now = server.ctx.clock.now().getTime();
    // What a request that died before committing leaves: a claim with no answer (same request hash).
    const hash = createHash('sha256').update(`POST /v3/payments {} ${JSON.stringify(body)}`).digest('hex');
    await server.ctx.db
      .insertInto('idempotency_keys')
      .values({ receiver_id: account.receiver_id, idem_key: 'orphan', request_hash: hash, response_status: null, response_body: null, locked_until: now + 60_000, expires_at: now + 3_600_000 })
      .execute();
    expect((await api.post('/v3/payments', body, { 'idempotency-key': 'orphan' })).status).toBe(409);
    await server.ctx.db.updateTable('idempotency_keys').set({ locked_until: now - 1 }).where('idem_key', '=', 'orphan').execute();
    const taken = await api.post('/v3/payments', body, { 'idempotency-key': 'orphan' });
    expect(taken.status).toBe(200);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect((await api.post('/v3/payments', body, { 'idempotency-key': 'orphan' })).headers.get('idempotent-replayed')).toBe('true');
  });

  it('forgets keys once they expire', async () => {
    const api = client(server.baseUrl, account.api_key);
    const first = await api.post('/v3/payments', body, { 'idempotency-key': 'short-lived' });
    await server.ctx.db.updateTable('idempotency_keys').set({ expires_at: server.ctx.clock.now().getTime() - 1 }).where('idem_key', '=', 'short-lived').execute();
    const again = await api.post('/v3/payments', body, { 'idempotency-key': 'short-lived' });
    expect(again.status).toBe(200);
    expect(again.body.payment_id).not.toBe(first.body.payment_id);
  });
  it('takes the same body with its keys in another order as the same request', async () => {
    const api = client(server.baseUrl, account.api_key);
    const first = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Reordered' }, { 'idempotency-key': 'reordered' });
    const again = await api.post('/v3/payments', { subject: 'Reordered', currency: 'CLP', amount: 1000 }, { 'idempotency-key': 'reordered' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.payment_id).toBe(first.body.payment_id);
  });

  describe('on POST /v3/receivers', () => {
    const receiver = validReceiver;

    it('keeps the stored answer, which holds the new secret, sealed, and replays it', async () => {
      const integrator = client(server.baseUrl, (await server.account({ features: { integrator: true } })).api_key);
      const created = await integrator.post('/v3/receivers', receiver, { 'idempotency-key': 'receiver-1' });
      expect(created.status).toBe(200);
      const stored = await server.ctx.db.selectFrom('idempotency_keys').select('response_body').where('idem_key', '=', 'receiver-1').executeTakeFirstOrThrow();
      expect(stored.response_body).not.toContain(created.body.secret);
      const replayed = await integrator.post('/v3/receivers', receiver, { 'idempotency-key': 'receiver-1' });
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body).toEqual(created.body);
    });

    it('draws another receiver id when the first is taken, inside the request transaction too', async () => {
      const integrator = client(server.baseUrl, (await server.account({ features: { integrator: true } })).api_key);
      const random = server.ctx.random;
      // Receiver ids come from 12 random bytes: zeros give the same id twice.
      let zeros = 0;
      server.ctx.random = (n: number) => (n === 12 && zeros-- > 0 ? new Uint8Array(12) : new Uint8Array(randomBytes(n)));
      try {
        zeros = 1;
        const taken = await integrator.post('/v3/receivers', receiver);
        expect(taken.status).toBe(200);
        zeros = 1;
        const drawn = await integrator.post('/v3/receivers', receiver, { 'idempotency-key': 'receiver-clash' });
        expect(drawn.status).toBe(200);
        expect(drawn.body.receiver_id).not.toBe(taken.body.receiver_id);
      } finally {
        server.ctx.random = random;
      }
    });
  });
});
