// A database that fails under Quipu: on SQLite a full disk (SQLite's own page limit makes the file
// full without filling a disk), on PostgreSQL a database that drops its connections and refuses
// new ones, as a stopped or restarting server does. A request that meets it is a 503 with
// Retry-After that changed nothing, /readyz answers 503 until a write goes through again, and
// service comes back by itself once the database does.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { refuseConnections } from '../helpers/database.js';
import { client } from '../helpers/http.js';
import { countRows } from '../helpers/payments.js';
import { useTestServer } from '../helpers/server.js';

let api: ReturnType<typeof client>;

const setup = useTestServer();
beforeAll(() => {
  api = client(setup.server.baseUrl, setup.account.api_key);
});

const ready = async () => {
  const res = await fetch(`${setup.server.baseUrl}/readyz`);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { message?: string } };
};
const create = () => api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'x', custom: 'c'.repeat(200_000) });

/** Makes the database fail, and gives back what brings it back. */
async function breakDatabase(): Promise<() => Promise<void>> {
  if (setup.server.database.kind === 'sqlite') {
    const pages = await sql<{ page_count: number }>`pragma page_count`.execute(setup.server.ctx.db);
    await sql.raw(`pragma max_page_count = ${pages.rows[0]!.page_count}`).execute(setup.server.ctx.db);
    return async () => void (await sql.raw('pragma max_page_count = 4294967294').execute(setup.server.ctx.db));
  }
  return refuseConnections(setup.server.database);
}

describe('when the database fails', () => {
  it('a create is a 503 with Retry-After that changed nothing, /readyz is 503 until the database is back, and then everything works again', async () => {
    expect((await ready()).status).toBe(200);
    const before = await countRows(setup.server.ctx.db, 'payments');
    const repair = await breakDatabase();
    const failed = await create();
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('5');
    expect(failed.body.message).toContain('nothing was changed');
    const notReady = await ready();
    expect(notReady.status).toBe(503);
    expect(notReady.retryAfter).toBe('5');
    await repair();
    await expect.poll(async () => (await ready()).status, { timeout: 10_000 }).toBe(200);
    expect(await countRows(setup.server.ctx.db, 'payments')).toBe(before);
    expect((await create()).status).toBe(200);
  });
});
