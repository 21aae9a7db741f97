// The database's traffic (ASVS 12.3.1): a production installation (SANDBOX=false) whose
// DATABASE_URL reaches a PostgreSQL server on another machine without a word on TLS (sslmode in the
// URL, or PGSSLMODE) refuses to start, naming the hosts; this machine's own server (loopback, a Unix
// socket) and an explicit sslmode, `disable` included, are taken.
//
// Over TLS (12.3.2): this machine's PostgreSQL takes no TLS, so a proxy stands in for a server on
// another machine (postgres-tls-proxy.ts), with a certificate from a CA of the test's own for
// db.quipu.test and 127.0.0.1. DATABASE_URL names the host as 127.0.0.1, which the certificate
// names too (an IP address in its subjectAltName): no DNS name nor `host=` parameter is needed,
// and node-postgres checks the address against the certificate as it would a host name. A
// production `quipu serve` and the commands told `sslmode=verify-full&sslrootcert=<that CA>` work
// through it, every connection in TLS 1.3; a certificate from another CA, or for another host,
// stops the start, saying why and naming no password, before a byte of PostgreSQL's protocol.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHostsInClear, databaseTransportProblems } from '../../src/store/postgres-tls.js';
import { testDatabaseKind } from '../helpers/database.js';
import { client } from '../helpers/http.js';
import { type PostgresTlsProxy, startPostgresTlsProxy } from '../helpers/postgres-tls-proxy.js';
import { quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS, secretFileSetting } from '../helpers/production.js';
import { type ServerCertificate, type TestCertificateAuthority, TestCertificates } from '../helpers/test-certificates.js';

it('names the hosts reached over a network with no word on TLS', () => {
  const env = {};
  expect(databaseHostsInClear('postgres://quipu:pw@db.internal:5432/quipu', env)).toEqual(['db.internal']);
  expect(databaseHostsInClear('postgres://quipu:pw@db1:5432,db2:5432/quipu', env)).toEqual(['db1', 'db2']);
  expect(databaseHostsInClear('postgres://quipu:pw@10.0.0.5/quipu?application_name=q', env)).toEqual(['10.0.0.5']);
  for (const safe of [
    'postgres://quipu:pw@db.internal/quipu?sslmode=verify-full',
    'postgres://quipu@db.internal/quipu?sslmode=verify-full&sslcert=/run/secrets/client.crt&sslkey=/run/secrets/client.key',
    'postgres://quipu:pw@db.internal/quipu?sslmode=disable',
    'postgres://quipu:pw@127.0.0.1:5432/quipu',
    'postgres://quipu:pw@localhost/quipu',
    'postgres://quipu:pw@[::1]:5432/quipu',
    'postgres://quipu@/quipu?host=/var/run/postgresql',
    'sqlite:/var/lib/quipu/quipu.db',
  ])
    expect(databaseHostsInClear(safe, env), safe).toEqual([]);
  expect(databaseHostsInClear('postgres://quipu:pw@db.internal/quipu', { PGSSLMODE: 'verify-full' })).toEqual([]);
});

it('takes no-verify, which takes any certificate, for no word on TLS over a network', () => {
  const production = (databaseUrl: string, env: Record<string, string> = {}) => databaseTransportProblems({ sandbox: false, databaseUrl }, env);
  const unverified =
    'a verified certificate for db.internal: sslmode=no-verify takes any certificate (sslmode=verify-full, with sslrootcert for a private CA; sslmode=disable only for a network you trust)';
  expect(production('postgres://quipu:pw@db.internal/quipu?sslmode=no-verify')).toEqual([unverified]);
  expect(production('postgres://quipu:pw@db.internal/quipu', { PGSSLMODE: 'no-verify' })).toEqual([unverified]);
  expect(production('postgres://quipu:pw@127.0.0.1/quipu?sslmode=no-verify')).toEqual([]);
  expect(production('postgres://quipu:pw@db.internal/quipu?sslmode=verify-full')).toEqual([]);
  expect(databaseTransportProblems({ sandbox: true, databaseUrl: 'postgres://quipu:pw@db.internal/quipu?sslmode=no-verify' }, {})).toEqual([]);
});

it('refuses to start until DATABASE_URL says sslmode', async () => {
  const result = await quipu(['serve'], {
    ...PRODUCTION_SETTINGS,
    ...secretFileSetting('DATABASE_URL', 'postgres://quipu:pw@db.internal:5432/quipu'),
    DATA_DIR: '/nonexistent/quipu',
  });
  expect(result.code).toBe(2);
  expect(result.stderr.trim()).toBe(
    'quipu: refusing to start: SANDBOX=false needs sslmode in DATABASE_URL, which reaches db.internal over the network (sslmode=verify-full; sslmode=disable only for a network you trust)',
  );
  expect(result.stderr).not.toContain('pw@');
}, 60_000);

describe.skipIf(testDatabaseKind() !== 'postgres')('a PostgreSQL server reached over TLS', { timeout: 120_000 }, () => {
  // Unused by this machine's server (trust authentication): here to show that no error repeats it.
  const PASSWORD = 'db-password-never-shown';
  const processes = withServerProcesses();
  const proxies: PostgresTlsProxy[] = [];
  let certificates: TestCertificates;
  let ourCa: TestCertificateAuthority;
  beforeAll(() => {
    certificates = new TestCertificates();
    ourCa = certificates.authority('Quipu test database CA');
  });
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close();
    certificates?.remove();
  });

  /** A proxy with `certificate` in front of the test's database, and a production installation's settings that reach it through TLS, verified against our CA. */
  async function throughTls(certificate: ServerCertificate) {
    const database = new URL(processes.database.url);
    const proxy = await startPostgresTlsProxy({ host: database.hostname, port: Number(database.port || 5432) }, certificate);
    proxies.push(proxy);
    const url = new URL(database);
    url.host = `127.0.0.1:${proxy.port}`;
    url.password = PASSWORD;
    url.search = new URLSearchParams({ sslmode: 'verify-full', sslrootcert: ourCa.certFile }).toString();
    return {
      proxy,
      // The password is there to be kept out of the logs; that it never expires is test/cli/database-sign-in.test.ts's matter.
      env: {
        ...PRODUCTION_SETTINGS,
        ...secretFileSetting('DATABASE_URL', url.toString()),
        DATABASE_CREDENTIALS_ACCEPTED: 'true',
        DATA_DIR: processes.database.dataDir,
        LOG_LEVEL: 'info',
      },
    };
  }

  it('serves a production installation through it, every connection in TLS 1.3', async () => {
    const { proxy, env } = await throughTls(ourCa.issue(['db.quipu.test', 'IP:127.0.0.1']));
    // It migrates the database at start: through the proxy too.
    const server = await serveOnFreePort(env, processes.started);
    const created = await quipu(['merchants', 'create', '--name', 'Over TLS', '--production', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const api = client(server.baseUrl, JSON.parse(created.stdout).api_key);
    const payment = await api.post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Over TLS' });
    expect(payment.status).toBe(200);
    const read = await api.get(`/v3/payments/${payment.body.payment_id}`);
    expect(read.body).toMatchObject({ payment_id: payment.body.payment_id, amount: 1000, subject: 'Over TLS' });

    const used = proxy.connections.filter((connection) => connection.passedOn);
    expect(used.length).toBeGreaterThan(1);
    expect(new Set(used.map((connection) => connection.protocol))).toEqual(new Set(['TLSv1.3']));
  });

  it.each([
    [
      'from a CA it was not told to trust',
      () => certificates.authority('Another CA').issue(['db.quipu.test', 'IP:127.0.0.1']),
      'unable to verify the first certificate',
    ],
    [
      'for another host',
      () => ourCa.issue(['elsewhere.quipu.test']),
      "Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list",
    ],
  ])('refuses a certificate %s: the server does not start, saying why in one line', async (_name, certificate, reason) => {
    const { proxy, env } = await throughTls(certificate());
    const refused = await quipu(['serve'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`quipu: cannot use the database: its certificate does not verify (${reason}). Check sslrootcert`);
    expect(refused.stderr).not.toMatch(/^\s+at /m);
    expect(refused.stdout + refused.stderr).not.toContain(PASSWORD);
    // It tried, and said nothing once it had seen the certificate: neither who it is nor which database.
    expect(proxy.connections.length).toBeGreaterThan(0);
    expect(proxy.connections.filter((connection) => connection.passedOn)).toEqual([]);
  });
});
