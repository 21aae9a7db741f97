// The database's traffic (ASVS 12.3.1): a production installation (SANDBOX=false) whose
// DATABASE_URL reaches a PostgreSQL server on another machine without a word on TLS (sslmode in the
// URL, or PGSSLMODE) refuses to start, naming the hosts; this machine's own server (loopback, a Unix
// socket) and an explicit sslmode, `disable` included, are taken.
import { expect, it } from 'vitest';
import { databaseHostsInClear } from '../../src/store/postgres-tls.js';
import { quipu } from '../helpers/process.js';
import { PRODUCTION_SETTINGS } from '../helpers/production.js';

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

it('refuses to start until DATABASE_URL says sslmode', async () => {
  const result = await quipu(['serve'], {
    ...PRODUCTION_SETTINGS,
    DATABASE_URL: 'postgres://quipu:pw@db.internal:5432/quipu',
    DATA_DIR: '/nonexistent/quipu',
  });
  expect(result.code).toBe(2);
  expect(result.stderr.trim()).toBe(
    'quipu: refusing to start: SANDBOX=false needs sslmode in DATABASE_URL, which reaches db.internal over the network (sslmode=verify-full; sslmode=disable only for a network you trust)',
  );
  expect(result.stderr).not.toContain('pw@');
}, 60_000);
