// The sandbox's door (docs/security.md, security finding 39.2) attacked as the finding did: Quipu on
// 127.0.0.1 without OPERATOR_TOKEN, a reverse proxy on the same machine, and a caller from outside
// who went through it to create an account and to delete another developer's account (one made with
// `quipu merchants create`), or the demo account. Each try now fails and changes nothing; a direct
// caller on the machine still gets in, but only to the accounts the sandbox made; snapshots are
// bounded per account, in number and in bytes, even when taken all at once; and every action
// leaves its audit record, naming the operator token or the loopback caller.
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/app/audit.js';
import { ensureDemoAccount } from '../../src/app/demo-account.js';
import { call, client } from '../helpers/http.js';
import { eventually } from '../helpers/notification-receiver.js';
import { startReverseProxy } from '../helpers/reverse-proxy.js';
import { serversClosedAfterAll, type TestAccount, type TestServer } from '../helpers/server.js';

const OPERATOR_TOKEN = 'sandbox-door-operator-token-0123456789';
const start = serversClosedAfterAll();

/** What nginx-style proxies add to what they pass on, each on its own. */
const PROXIES: Record<string, (client: string) => Record<string, string>> = {
  'X-Forwarded-For': (from) => ({ 'x-forwarded-for': from }),
  Forwarded: (from) => ({ forwarded: `for=${from};proto=http` }),
  Via: () => ({ via: '1.1 nginx' }),
  // A proxy that adds nothing but passes the public host on; so does a page whose name was made to
  // resolve to 127.0.0.1 (DNS rebinding).
  'the public Host': () => ({ host: 'pay.example.com' }),
};

const auditRows = (server: TestServer, action: string) =>
  server.ctx.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', action as never)
    .orderBy('seq')
    .execute();

/** The account still works with its own key: nothing of it was removed. */
async function stillThere(server: TestServer, account: { api_key: string }): Promise<void> {
  expect((await client(server.baseUrl, account.api_key).get('/sandbox/clock')).status).toBe(200);
}

describe('Quipu on loopback without OPERATOR_TOKEN, a reverse proxy on the same machine in front', () => {
  let server: TestServer;
  let demo: { receiver_id: number; api_key: string };
  /** Another developer's account, made as `quipu merchants create` makes it. */
  let developers: TestAccount;

  beforeAll(async () => {
    server = await start({});
    demo = (await ensureDemoAccount(server.ctx))!;
    developers = await server.account({ developer: true });
  });

  it('refuses whatever came through the proxy, saying to use the operator token, and deletes nothing', async () => {
    for (const [adds, headers] of Object.entries(PROXIES)) {
      const proxy = await startReverseProxy(server.baseUrl, headers);
      try {
        const created = await call(proxy.url, 'POST', '/sandbox/accounts', { body: {} });
        expect(created.status, adds).toBe(403);
        expect(created.body.message, adds).toMatch(/OPERATOR_TOKEN/);
        for (const victim of [developers, demo]) {
          expect((await call(proxy.url, 'DELETE', `/sandbox/accounts/${victim.receiver_id}`)).status, adds).toBe(403);
          expect((await call(proxy.url, 'POST', `/sandbox/accounts/${victim.receiver_id}/snapshots`)).status, adds).toBe(403);
        }
      } finally {
        await proxy.close();
      }
    }
    await stillThere(server, developers);
    await stillThere(server, demo);
    // Refused at the door: nothing was done, and a flood of such requests writes nothing.
    expect(await auditRows(server, 'sandbox.account.create')).toEqual([]);
    expect(await auditRows(server, 'sandbox.account.delete')).toEqual([]);
  });

  it('lets a direct caller on the machine in, to the accounts the sandbox made only: any other is unknown', async () => {
    const made = await call(server.baseUrl, 'POST', '/sandbox/accounts', { body: {} });
    expect(made.status).toBe(200);
    for (const victim of [developers, demo]) {
      const path = `/sandbox/accounts/${victim.receiver_id}`;
      for (const [method, tried] of [
        ['DELETE', path],
        ['POST', `${path}/snapshots`],
        ['GET', `${path}/snapshots`],
        ['POST', `${path}/snapshots/6b0e1c1e-0000-4000-8000-000000000000/restore`],
        ['DELETE', `${path}/snapshots/6b0e1c1e-0000-4000-8000-000000000000`],
      ] as const) {
        const refused = await call(server.baseUrl, method, tried);
        expect(refused.status, `${method} ${tried}`).toBe(404);
        expect(refused.body.message).toBe('Account not found');
      }
      await stillThere(server, victim);
    }
    expect((await call(server.baseUrl, 'DELETE', `/sandbox/accounts/${made.body.receiver_id}`)).status).toBe(204);
    expect((await client(server.baseUrl, made.body.api_key).get('/sandbox/clock')).status).toBe(401);
  });

  it('audits every action in its own transaction, and each refusal of a caller it let in, with the loopback caller', async () => {
    const sandbox = (method: 'POST' | 'DELETE', path: string) => call(server.baseUrl, method, path);
    const { seq: before } = await server.ctx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.coalesce(eb.fn.max('seq'), eb.lit(0)).as('seq'))
      .executeTakeFirstOrThrow();
    const since = async (action: string) => (await auditRows(server, action)).filter((row) => Number(row.seq) > Number(before));
    const made = (await call(server.baseUrl, 'POST', '/sandbox/accounts', { body: { dashboard: true } })).body;
    const id = made.receiver_id as number;
    const snapshot = (await sandbox('POST', `/sandbox/accounts/${id}/snapshots`)).body.snapshot_id as string;
    expect((await sandbox('POST', `/sandbox/accounts/${id}/snapshots/${snapshot}/restore`)).status).toBe(200);
    expect((await sandbox('DELETE', `/sandbox/accounts/${id}/snapshots/${snapshot}`)).status).toBe(204);
    expect((await sandbox('DELETE', `/sandbox/accounts/${id}`)).status).toBe(204);
    expect((await sandbox('DELETE', `/sandbox/accounts/${demo.receiver_id}`)).status).toBe(404);

    const caller = { actor_kind: 'loopback', actor: '127.0.0.1', address: '127.0.0.1' };
    for (const [action, target] of [
      ['sandbox.account.create', null],
      ['sandbox.snapshot.take', snapshot],
      ['sandbox.snapshot.restore', snapshot],
      ['sandbox.snapshot.delete', snapshot],
    ] as const) {
      const rows = await since(action);
      expect(rows, action).toEqual([expect.objectContaining({ ...caller, target, outcome: 'ok' })]);
    }
    const deletes = await eventually(
      () => since('sandbox.account.delete'),
      (rows) => rows.length === 2,
    );
    expect(deletes).toEqual([
      expect.objectContaining({ ...caller, receiver_id: id, target: null, outcome: 'ok' }),
      expect.objectContaining({ ...caller, receiver_id: demo.receiver_id, target: `/sandbox/accounts/${demo.receiver_id}`, outcome: 'refused' }),
    ]);
    expect((await verifyAudit(server.ctx)).fault).toBeUndefined();
  });
});

describe('TRUST_PROXY set, without OPERATOR_TOKEN', () => {
  it('lets no token-less caller in, even one on the machine that sends no proxy header', async () => {
    const server = await start({ TRUST_PROXY: '127.0.0.1' });
    const refused = await call(server.baseUrl, 'POST', '/sandbox/accounts', { body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/OPERATOR_TOKEN/);
  });
});

describe('OPERATOR_TOKEN set, behind the proxy', () => {
  it('lets the token through, from anywhere, and nothing else; the records name the operator', async () => {
    const server = await start({ OPERATOR_TOKEN });
    const proxy = await startReverseProxy(server.baseUrl, PROXIES['X-Forwarded-For']!);
    try {
      expect((await call(proxy.url, 'POST', '/sandbox/accounts', { body: {} })).status).toBe(401);
      const made = await call(proxy.url, 'POST', '/sandbox/accounts', { body: {}, headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      expect(made.status).toBe(200);
      const [record] = await auditRows(server, 'sandbox.account.create');
      expect(record).toMatchObject({ actor_kind: 'operator', actor: '127.0.0.1', receiver_id: made.body.receiver_id, outcome: 'ok' });
    } finally {
      await proxy.close();
    }
  });
});

describe('snapshots of an account, bounded', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({ SANDBOX_SNAPSHOTS_PER_ACCOUNT: '3', SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT: '32768' });
  });
  const sandbox = (method: 'POST' | 'GET' | 'DELETE', path: string) => call(server.baseUrl, method, path);

  it('are at most SANDBOX_SNAPSHOTS_PER_ACCOUNT, also when eight are taken at once', async () => {
    const id = (await call(server.baseUrl, 'POST', '/sandbox/accounts', { body: {} })).body.receiver_id as number;
    const path = `/sandbox/accounts/${id}/snapshots`;
    const taken = await Promise.all(Array.from({ length: 8 }, () => sandbox('POST', path)));
    expect(taken.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 400, 400, 400, 400, 400]);
    const refused = taken.find((answer) => answer.status === 400)!;
    expect(refused.body.message).toBe('The account keeps 3 snapshots, the most SANDBOX_SNAPSHOTS_PER_ACCOUNT allows (3): delete one first');
    const kept = (await sandbox('GET', path)).body.items as { snapshot_id: string }[];
    expect(kept).toHaveLength(3);
    expect((await sandbox('DELETE', `${path}/${kept[0]!.snapshot_id}`)).status).toBe(204);
    expect((await sandbox('POST', path)).status).toBe(200);
    const records = (await auditRows(server, 'sandbox.snapshot.take')).filter((row) => Number(row.receiver_id) === id);
    expect(records.filter((row) => row.outcome === 'ok')).toHaveLength(4);
    // The five refused, each once it was answered.
    await eventually(
      () => auditRows(server, 'sandbox.snapshot.take'),
      (rows) => rows.filter((row) => Number(row.receiver_id) === id && row.outcome === 'refused').length === 5,
    );
  });

  it('hold at most SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT together: a snapshot past it records nothing', async () => {
    const made = (await call(server.baseUrl, 'POST', '/sandbox/accounts', { body: {} })).body;
    const path = `/sandbox/accounts/${made.receiver_id}/snapshots`;
    expect((await sandbox('POST', path)).status).toBe(200);
    const api = client(server.baseUrl, made.api_key);
    for (let n = 0; n < 40; n++)
      expect((await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: `Pedido ${n} `.padEnd(200, 'x') })).status).toBe(200);
    const refused = await sandbox('POST', path);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(
      /^With this snapshot the account's snapshots would hold \d+ bytes, more than SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT allows \(32768\)/,
    );
    expect((await sandbox('GET', path)).body.items).toHaveLength(1);
    expect(await server.ctx.db.selectFrom('sandbox_snapshots').select('snapshot_id').where('receiver_id', '=', made.receiver_id).execute()).toHaveLength(1);
  });
});
