// Signing in to PostgreSQL with a client certificate, end to end (ASVS 13.2.1), as
// docs/operations.md ("Signing in to PostgreSQL") tells operators to: a production `quipu serve`
// whose DATABASE_URL says sslmode=verify-full, sslrootcert, sslcert and sslkey, to a server whose
// pg_hba.conf takes the role only with `hostssl ... cert`. The machine's shared PostgreSQL runs
// without TLS and must not be reconfigured, so the test makes a server of its own
// (private-postgres.ts) with `ssl = on`, a certificate for 127.0.0.1 and the client CA, all from a
// CA of the test's own (test-certificates.ts). Quipu starts without DATABASE_CREDENTIALS_ACCEPTED,
// migrates the database the role owns, takes a payment, and the server's own pg_stat_ssl shows the
// client's certificate; without one, or with one for another role, the server refuses the
// connection and the start fails in one line. Runs in the PostgreSQL suite, as test/failover does.
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKind, withPostgresClient } from '../helpers/database.js';
import { client } from '../helpers/http.js';
import { postgresBinaries, type PrivatePostgres, privatePostgres } from '../helpers/private-postgres.js';
import { freePort, quipu, serveOnFreePort, type ServerProcess } from '../helpers/process.js';
import { PRODUCTION_SETTINGS, secretFileSetting } from '../helpers/production.js';
import { type CertificateFiles, type TestCertificateAuthority, TestCertificates } from '../helpers/test-certificates.js';

/** The role Quipu signs in as, with no password and no VALID UNTIL: its certificate is its credential. */
const ROLE = 'quipu_cert';
const DATABASE = 'quipu';

describe.skipIf(testDatabaseKind() !== 'postgres' || postgresBinaries() === undefined)(
  'signing in to PostgreSQL with a client certificate',
  { timeout: 120_000 },
  () => {
    const started: ServerProcess[] = [];
    let cluster: PrivatePostgres;
    let port: number;
    let certificates: TestCertificates;
    let ca: TestCertificateAuthority;
    let certificate: CertificateFiles;
    let dataDir: string;

    /** As the cluster's superuser, over the `host ... trust` line kept for setting it up. */
    const asPostgres = <T>(work: (db: pg.Client) => Promise<T>) => withPostgresClient(`postgres://postgres@127.0.0.1:${port}/postgres`, work);

    /** DATABASE_URL as docs/operations.md shows it, with `client`'s certificate and key, or none. */
    function databaseUrl(client: CertificateFiles | undefined, user = ROLE): string {
      const tls = { sslmode: 'verify-full', sslrootcert: ca.certFile, ...(client && { sslcert: client.certFile, sslkey: client.keyFile }) };
      return `postgres://${user}@127.0.0.1:${port}/${DATABASE}?${new URLSearchParams(tls)}`;
    }

    const production = (url: string) => ({ ...PRODUCTION_SETTINGS, ...secretFileSetting('DATABASE_URL', url), DATA_DIR: dataDir, RUN_WORKER: 'false' });

    beforeAll(async () => {
      certificates = new TestCertificates();
      ca = certificates.authority('Quipu test database CA');
      certificate = ca.issueClient(ROLE);
      const server = ca.issue(['db.quipu.test', 'IP:127.0.0.1']);
      cluster = privatePostgres('quipu-client-certificate-');
      port = await freePort();
      const dir = await cluster.init('server', port, { ssl: 'on', ssl_cert_file: 'server.crt', ssl_key_file: 'server.key', ssl_ca_file: 'client-ca.crt' });
      cluster.writeClusterFile(path.join(dir, 'server.crt'), server.cert);
      cluster.writeClusterFile(path.join(dir, 'server.key'), server.key);
      // A copy: the server runs as its own user, who cannot read the test's certificate folder.
      cluster.writeClusterFile(path.join(dir, 'client-ca.crt'), fs.readFileSync(ca.certFile, 'utf8'));
      // The role comes in over TLS with a certificate the CA signed for its name, or not at all.
      cluster.writeClusterFile(path.join(dir, 'pg_hba.conf'), `hostssl all ${ROLE} 127.0.0.1/32 cert\nhost all postgres 127.0.0.1/32 trust\n`);
      await cluster.start(dir);
      await asPostgres(async (db) => {
        await db.query(`create role ${ROLE} login`);
        // Its own: `quipu serve` migrates it as the role.
        await db.query(`create database ${DATABASE} owner ${ROLE}`);
      });
      dataDir = path.join(cluster.folder, 'quipu');
      fs.mkdirSync(dataDir);
    });
    afterAll(async () => {
      for (const server of started) await server.stop();
      cluster?.stop();
      certificates?.remove();
    });

    it('starts a production installation without DATABASE_CREDENTIALS_ACCEPTED, takes a payment, and the server sees the certificate', async () => {
      const env = production(databaseUrl(certificate));
      const server = await serveOnFreePort(env, started);
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      const created = await quipu(['merchants', 'create', '--name', 'Certified', '--production', '--json'], env);
      expect(created.code, created.stderr).toBe(0);
      const payment = await client(server.baseUrl, JSON.parse(created.stdout).api_key).post('/v3/payments', {
        amount: 1000,
        currency: 'CLP',
        subject: 'Signed in with a certificate',
      });
      expect(payment.status, JSON.stringify(payment.body)).toBe(200);

      const { rows } = await asPostgres((db) =>
        db.query<{ client_dn: string | null }>(`select client_dn from pg_stat_ssl join pg_stat_activity using (pid) where usename = '${ROLE}'`),
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((row) => row.client_dn))).toEqual(new Set([`/CN=${ROLE}`]));
    });

    // With no password, to 127.0.0.1, the start would also take the connection as this machine's
    // operating system account; a password the `cert` method never asks for rules that out.
    it('starts on the certificate alone, not as this machine with no password', async () => {
      const url = databaseUrl(certificate).replace(`${ROLE}@`, `${ROLE}:a-password-never-asked-for@`);
      const server = await serveOnFreePort(production(url), started);
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    });

    it.each([
      ['without a certificate', () => undefined, 'connection requires a valid client certificate'],
      ['with a certificate for another role', () => ca.issueClient('someone_else'), `certificate authentication failed for user "${ROLE}"`],
    ])('cannot connect %s: the start fails in one line, naming no key material', async (_, presented, reason) => {
      const client = presented();
      const result = await quipu(['serve'], { ...production(databaseUrl(client)), PORT: String(await freePort()) });
      expect(result.code).toBe(2);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toContain(reason);
      expect(result.stdout + result.stderr).not.toContain('PRIVATE KEY');
      if (client) expect(result.stdout + result.stderr).not.toContain(fs.readFileSync(client.keyFile, 'utf8').split('\n')[1]);
    });
  },
);
