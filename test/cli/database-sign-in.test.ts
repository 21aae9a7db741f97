// A production installation does not sign in to PostgreSQL with an unchanging password (ASVS
// 13.2.1). `quipu serve` and `quipu worker` ask the server how they signed in: a role whose password
// never expires, or expires more than 32 days ahead, stops the start in one line naming the role
// and the ways out, unless the operator says DATABASE_CREDENTIALS_ACCEPTED=true; a role VALID UNTIL
// an hour ahead (a secrets manager's lease), a member of rds_iam (IAM tokens) and a connection to
// this machine with no password start. This machine's PostgreSQL trusts local connections, so the
// passwords below are never checked: what the test varies is what the server says of each role.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignIn, unchangingSignInProblem } from '../../src/store/postgres-sign-in.js';
import { asPostgresAdmin, testDatabaseKind } from '../helpers/database.js';
import { quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS, secretFileSetting } from '../helpers/production.js';

const WAYS_OUT =
  "sign in with a client certificate (sslcert and sslkey in DATABASE_URL), with roles VALID UNTIL at most 32 days ahead as a secrets manager issues them (Vault's database secrets engine, through DATABASE_URL_FILE), or say DATABASE_CREDENTIALS_ACCEPTED=true to accept it";
const refusalOf = (role: string, password: string) =>
  `quipu: refusing to start: SANDBOX=false needs a database sign-in that is not an unchanging password (ASVS 13.2.1): role ${role} signs in with ${password}; ${WAYS_OUT}`;

describe('the rule', () => {
  const fixed: SignIn = {
    role: 'quipu_service',
    validUntil: null,
    shortLived: false,
    clientCertificate: false,
    kerberos: false,
    platformTokens: false,
    operatingSystemAccount: false,
  };

  it('refuses a password that never expires, or expires later than a lease', () => {
    expect(`quipu: refusing to start: ${unchangingSignInProblem(fixed)}`).toBe(refusalOf('quipu_service', 'a password that never expires'));
    expect(unchangingSignInProblem({ ...fixed, validUntil: '2027-06-01 00:00:00+00' })).toContain(
      'role quipu_service signs in with a password valid until 2027-06-01 00:00:00+00, more than 32 days away;',
    );
  });

  it('takes a certificate, Kerberos, IAM tokens, no password on this machine or a short-lived password', () => {
    for (const way of ['clientCertificate', 'kerberos', 'platformTokens', 'operatingSystemAccount', 'shortLived'] as const)
      expect(unchangingSignInProblem({ ...fixed, [way]: true }), way).toBeUndefined();
  });
});

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const suffix = randomBytes(4).toString('hex');

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** Each role the test signs in as, and how it is made. */
const ROLES = {
  fixed: { name: `quipu_fixed_${suffix}`, options: '' },
  distant: { name: `quipu_distant_${suffix}`, options: `valid until '${inDays(90)}'` },
  leased: { name: `quipu_leased_${suffix}`, options: `valid until '${inDays(1 / 24)}'` },
  iam: { name: `quipu_iam_${suffix}`, options: '' },
};

describe.skipIf(testDatabaseKind() !== 'postgres')('a production start on PostgreSQL', { timeout: 120_000 }, () => {
  const processes = withServerProcesses();
  let database: string;
  /** rds_iam exists only on Amazon RDS: made here when the server lacks it, and dropped after. */
  let madeRdsIam = false;

  const urlAs = (role: string) => {
    const url = new URL(ADMIN_URL);
    url.username = role;
    url.password = `a-password-of-${role}`;
    url.pathname = `/${database}`;
    return url.toString();
  };
  const production = (role: string, more: Record<string, string> = {}) => ({
    ...PRODUCTION_SETTINGS,
    ...secretFileSetting('DATABASE_URL', urlAs(role)),
    DATA_DIR: processes.database.dataDir,
    RUN_WORKER: 'false',
    ...more,
  });

  async function refusal(command: string, settings: Record<string, string>): Promise<string> {
    const result = await quipu([command], settings);
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0]!;
  }

  beforeAll(async () => {
    database = new URL(processes.database.url).pathname.slice(1);
    const migrated = await quipu(['migrate'], { DATABASE_URL: processes.database.url, DATA_DIR: processes.database.dataDir });
    expect(migrated.code, migrated.stderr).toBe(0);
    await asPostgresAdmin(async (db) => {
      for (const { name, options } of Object.values(ROLES)) await db.query(`create role ${name} login ${options}`);
      madeRdsIam = (await db.query(`select 1 from pg_roles where rolname = 'rds_iam'`)).rowCount === 0;
      if (madeRdsIam) await db.query('create role rds_iam nologin');
      await db.query(`grant rds_iam to ${ROLES.iam.name}`);
    });
    await asPostgresAdmin(async (db) => {
      for (const { name } of Object.values(ROLES)) {
        await db.query(`grant usage on schema public to ${name}`);
        await db.query(`grant select, insert, update, delete on all tables in schema public to ${name}`);
        await db.query(`grant usage, select on all sequences in schema public to ${name}`);
      }
    }, database);
  });
  afterAll(async () => {
    await asPostgresAdmin(async (db) => {
      for (const { name } of Object.values(ROLES)) {
        await db.query(`drop owned by ${name}`, []).catch(() => undefined);
        await db.query(`drop role if exists ${name}`);
      }
      if (madeRdsIam) await db.query('drop role if exists rds_iam');
    }, database).catch(() => undefined);
  });

  it.each(['serve', 'worker'])('quipu %s refuses a password that never expires, naming the role and the ways out', async (command) => {
    expect(await refusal(command, production(ROLES.fixed.name))).toBe(refusalOf(ROLES.fixed.name, 'a password that never expires'));
  });

  it('refuses a password valid for longer than a lease, and a PGPASSWORD counts as a password', async () => {
    const line = await refusal('serve', production(ROLES.distant.name));
    expect(line).toMatch(new RegExp(`role ${ROLES.distant.name} signs in with a password valid until \\S+ \\S+, more than 32 days away;`));
    const noPasswordInUrl = { ...production(ROLES.fixed.name), ...secretFileSetting('DATABASE_URL', urlAs(ROLES.fixed.name).replace(/:[^:@/]+@/, '@')) };
    expect(await refusal('serve', { ...noPasswordInUrl, PGPASSWORD: 'from-the-environment', SECRETS_FROM_ENVIRONMENT: 'true' })).toBe(
      refusalOf(ROLES.fixed.name, 'a password that never expires'),
    );
  });

  it('starts with a password that never expires when the operator accepts it', async () => {
    const server = await serveOnFreePort(production(ROLES.fixed.name, { DATABASE_CREDENTIALS_ACCEPTED: 'true' }), processes.started);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });

  it.each([
    ['a role valid for an hour, as a lease is', 'leased'],
    ['a role that signs in with IAM tokens', 'iam'],
  ] as const)('starts with %s', async (_, which) => {
    const server = await serveOnFreePort(production(ROLES[which].name), processes.started);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });

  it('starts on this machine with no password (no credential to be unchanging), and in developer mode whatever the password', async () => {
    const local = await serveOnFreePort(
      { ...PRODUCTION_SETTINGS, DATABASE_URL: processes.database.url, DATA_DIR: processes.database.dataDir },
      processes.started,
    );
    expect((await fetch(`${local.baseUrl}/healthz`)).status).toBe(200);
    const sandbox = await serveOnFreePort(
      { DATABASE_URL: urlAs(ROLES.fixed.name), DATA_DIR: processes.database.dataDir, RUN_WORKER: 'false' },
      processes.started,
    );
    expect((await fetch(`${sandbox.baseUrl}/healthz`)).status).toBe(200);
  });
});
