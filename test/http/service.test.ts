// What operators and tools read: health, readiness, metrics and the OpenAPI document; and what a
// database outage looks like from outside: not ready, and a 500 that keeps its internals to the log.
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_REQUEST_FIELDS } from '../../src/domain/payment-request.js';
import { openDatabase } from '../../src/store/database.js';
import { createTestDatabase, refuseConnections, type TestDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { countRows } from '../helpers/payments.js';
import { freePort, logLines, type ServerProcess, startServerProcess, waitForHttp } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('service endpoints', () => {
  it('answers /healthz and /readyz', async () => {
    expect((await call(server.baseUrl, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(server.baseUrl, 'GET', '/readyz')).body).toEqual({ status: 'ok' });
  });

  it('exposes Prometheus metrics including request latency per route', async () => {
    await call(server.baseUrl, 'GET', '/v3/banks');
    const res = await fetch(`${server.baseUrl}/metrics`);
    const text = await res.text();
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(text).toContain('quipu_process_resident_memory_bytes');
    expect(text).toMatch(/quipu_http_request_duration_seconds_count\{method="GET",route="\/v3\/banks",status="401"\} \d+/);
  });

  it('serves the OpenAPI document generated from the route schemas, and its browser', async () => {
    const doc = (await call(server.baseUrl, 'GET', '/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    for (const path of [
      '/v3/banks',
      '/v3/payments',
      '/v3/payments/{id}',
      '/v3/payments/{id}/confirm',
      '/v3/payments/{id}/refunds',
      '/v3/predict',
      '/v3/receivers',
      '/v3/merchants/{id}/paymentMethods',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const create = doc.paths['/v3/payments'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(create.properties).sort()).toEqual(Object.keys(PAYMENT_REQUEST_FIELDS.v3).sort());
    expect(create.properties.subject.maxLength).toBe(255);
    expect(doc.components.securitySchemes['Api-Key']).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.paths['/healthz']).toBeUndefined();
    const ui = await fetch(`${server.baseUrl}/docs`, { redirect: 'follow' });
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });
});

/**
 * Takes the database away from the server as an outage would; returns how to give it back. SQLite:
 * another process holds the write lock, so every transaction of the server waits out its busy
 * timeout and fails. PostgreSQL: the database refuses connections and its sessions are ended.
 */
async function takeDatabaseAway(database: TestDatabase): Promise<() => Promise<void>> {
  if (database.kind === 'sqlite') {
    const other = new BetterSqlite3(database.url.slice('sqlite:'.length));
    other.pragma('busy_timeout = 5000');
    other.exec('begin immediate');
    return async () => {
      other.exec('rollback');
      other.close();
    };
  }
  return refuseConnections(database);
}

describe('a database outage', () => {
  let database: TestDatabase;
  let quipu: ServerProcess;
  let baseUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const port = await freePort();
    quipu = startServerProcess({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, PORT: String(port), LOG_LEVEL: 'error', RUN_WORKER: 'false' });
    apiKey = /api_key\s+(\S+)/.exec(await quipu.waitFor(/API reference/))![1]!;
    baseUrl = `http://127.0.0.1:${port}`;
    // The banner comes before the server listens (cli/serve.ts): ready is when /healthz answers.
    await waitForHttp(`${baseUrl}/healthz`);
    // The account is known (and cached) before the outage: what fails is the work, not the credential.
    expect((await call(baseUrl, 'GET', '/v3/banks', { apiKey })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await quipu?.stop();
    await database?.drop();
  });

  it('makes /readyz answer 503, and 200 again once the database is back', async () => {
    const giveBack = await takeDatabaseAway(database);
    try {
      const res = await call(baseUrl, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toEqual({ status: 503, message: 'Not ready: the database is unavailable' });
    } finally {
      await giveBack();
    }
    await expect.poll(async () => (await call(baseUrl, 'GET', '/readyz')).status, { timeout: 15_000 }).toBe(200);
  }, 30_000);

  it('answers a v3 request it breaks with a 503 and Retry-After that names the request id and nothing internal, and logs what failed', async () => {
    const giveBack = await takeDatabaseAway(database);
    let res;
    try {
      res = await call(baseUrl, 'POST', '/v3/payments', {
        apiKey,
        headers: { 'x-request-id': 'outage-1' },
        body: { amount: 1000, currency: 'CLP', subject: 'Order' },
      });
    } finally {
      await giveBack();
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('x-request-id')).toBe('outage-1');
    expect(res.body).toEqual({ status: 503, message: expect.stringContaining('outage-1') });
    expect(JSON.stringify(res.body)).not.toMatch(/sqlite|postgres|database|locked|connection|insert|select|\.ts:|at /i);
    // The log has the rest, at error level, under the request id.
    await expect
      .poll(() => logLines(quipu).filter((l) => l.reqId === 'outage-1' && l.level === 50 && l.msg === 'storage failure: database unavailable'), {
        timeout: 5_000,
      })
      .toHaveLength(1);
    const logged = logLines(quipu).find((l) => l.reqId === 'outage-1' && l.msg === 'storage failure: database unavailable')!;
    // Through PgBouncer the query waits for a server connection and fails with query_wait_timeout.
    expect(JSON.stringify(logged.err)).toMatch(/SQLITE_BUSY|not currently accepting connections|terminat|query_wait_timeout/i);
    const check = openDatabase(database.url);
    try {
      expect(await countRows(check.db, 'payments')).toBe(0);
    } finally {
      await check.close();
    }
  }, 30_000);
});
