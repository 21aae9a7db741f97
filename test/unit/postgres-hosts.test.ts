// DATABASE_URL naming a primary and its standbys, as libpq writes it: the hosts in order, and the
// URL node-postgres reads (one host, without target_session_attrs); and the user and password a
// URL signs in with, which DATABASE_URL_FILE gives each new connection (postgres-credentials.ts).
import { describe, expect, it } from 'vitest';
import { postgresTarget, urlCredentials, withoutPassword } from '../../src/store/postgres-hosts.js';

describe('postgresTarget', () => {
  it('leaves a URL of one host as it is', () => {
    const url = 'postgres://quipu:secret@db.internal:6432/quipu?pooler=transaction';
    expect(postgresTarget(url)).toEqual({ url, hosts: [{ host: 'db.internal', port: 6432 }], readWrite: false });
  });

  it('takes several hosts apart, in order, with the default port where none is given, and wants the one that takes writes', () => {
    expect(postgresTarget('postgresql://quipu:s%40cret@db1,db2:5433,[fd00::3]:5434/quipu?sslmode=require&target_session_attrs=read-write')).toEqual({
      url: 'postgresql://quipu:s%40cret@db1:5432/quipu?sslmode=require',
      hosts: [
        { host: 'db1', port: 5432 },
        { host: 'db2', port: 5433 },
        { host: 'fd00::3', port: 5434 },
      ],
      readWrite: true,
    });
  });

  it('wants a host that takes writes when target_session_attrs says so of one host', () => {
    expect(postgresTarget('postgres://u@db1:5432/quipu?target_session_attrs=read-write')).toEqual({
      url: 'postgres://u@db1:5432/quipu',
      hosts: [{ host: 'db1', port: 5432 }],
      readWrite: true,
    });
  });

  it.each(['any', 'read-only', 'standby', 'prefer-standby'])('refuses target_session_attrs=%s: Quipu writes', (attrs) => {
    expect(() => postgresTarget(`postgres://u@db1,db2/quipu?target_session_attrs=${attrs}`)).toThrow(/target_session_attrs must be "read-write"/);
  });

  it.each(['db1,', 'db1:99999,db2', 'db1:port,db2'])('refuses the host list %s', (hosts) => {
    expect(() => postgresTarget(`postgres://u@${hosts}/quipu`)).toThrow(/is not a host or host:port/);
  });
});

describe('withoutPassword', () => {
  it.each([
    [
      'postgres://quipu:secret@db1:5432,db2:5432/quipu?target_session_attrs=read-write',
      'postgres://quipu@db1:5432,db2:5432/quipu?target_session_attrs=read-write',
    ],
    ['postgres://quipu@db1/quipu', 'postgres://quipu@db1/quipu'],
    ['postgres://db1/quipu', 'postgres://db1/quipu'],
  ])('%s is shown as %s', (url, shown) => {
    expect(withoutPassword(url)).toBe(shown);
  });
});

describe('urlCredentials', () => {
  it('reads the user and password as node-postgres does: decoded, the parameters first, undefined where none is named', () => {
    expect(urlCredentials('postgres://v-quipu-Ab1:p%40ss%2Fw0rd@db1:5432,db2/quipu?sslmode=verify-full')).toEqual({
      user: 'v-quipu-Ab1',
      password: 'p@ss/w0rd',
    });
    expect(urlCredentials('postgres://quipu@db/quipu?sslcert=/run/secrets/quipu.crt&sslkey=/run/secrets/quipu.key')).toEqual({
      user: 'quipu',
      password: undefined,
    });
    expect(urlCredentials('postgresql://db/quipu?user=quipu&password=from-parameter')).toEqual({ user: 'quipu', password: 'from-parameter' });
    expect(urlCredentials('postgres://db/quipu')).toEqual({ user: undefined, password: undefined });
    expect(() => urlCredentials('mysql://quipu:pw@db/quipu')).toThrow('not a postgres:// URL');
  });
});
