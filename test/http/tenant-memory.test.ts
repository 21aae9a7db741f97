// No tenant's data sizes take the process past its memory bound: the payment read cache, the one
// cache that holds what a tenant chose the size of (`custom` up to BODY_LIMIT), is bounded in
// estimated bytes as well as entries, and a payment too large to keep is read afresh each time
// (480 reads of 9 MB payments once ended the process out of memory). Both databases.
import { beforeAll, describe, expect, it } from 'vitest';
import { READ_CACHE_LIMITS, readCacheUse } from '../../src/store/payments.js';
import { client } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

let api: ReturnType<typeof client>;

const setup = useTestServer();
beforeAll(() => {
  api = client(setup.server.baseUrl, setup.account.api_key);
});

async function create(custom: string): Promise<string> {
  const created = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'large', custom });
  expect(created.status).toBe(200);
  return created.body.payment_id as string;
}

/** Reads every id `times` times, eight at a time, checking each answer carries the whole custom. */
async function readAll(ids: string[], times: number, customLength: number): Promise<void> {
  const reads = Array.from({ length: times }, () => ids).flat();
  for (let i = 0; i < reads.length; i += 8) {
    const answers = await Promise.all(reads.slice(i, i + 8).map((id) => api.get(`/v3/payments/${id}`)));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect((answer.body.custom as string).length).toBe(customLength);
    }
  }
}

describe('the payment read cache', () => {
  it('keeps no payment too large for it: 9 MB payments read 96 times are answered, and none is held', async () => {
    const size = 9 * 1024 * 1024;
    const ids = await Promise.all([create('a'.repeat(size)), create('b'.repeat(size)), create('c'.repeat(size))]);
    await readAll(ids, 32, size);
    const use = readCacheUse(setup.server.ctx.db);
    expect(use.bytes).toBeLessThan(READ_CACHE_LIMITS.entryBytes);
  });

  it('holds at most its byte bound of payments it may keep, however many are polled', async () => {
    const length = 110_000;
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push(await create(String(i % 10).repeat(length)));
    await readAll(ids, 2, length);
    const use = readCacheUse(setup.server.ctx.db);
    expect(use.bytes).toBeLessThanOrEqual(READ_CACHE_LIMITS.bytes);
    expect(use.entries).toBeGreaterThan(0);
    expect(use.entries).toBeLessThan(ids.length);
  });
});
