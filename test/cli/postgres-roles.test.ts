// The least-privilege PostgreSQL roles of docs/security.md (ASVS 13.2.2): a migration role owns the
// database and its schema, and the service role that runs `quipu serve`, the worker and the
// commands has only the grants listed there. The test makes both roles, migrates with the first
// and runs the service with the second, through payments, a notification, the background jobs, a
// dashboard sign-in and key rotation; the service role can create, drop or alter nothing, and cannot
// edit an audit record. Both roles are dropped at the end.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/database.js';
import { client } from '../helpers/http.js';
import { eventually, signedBy, startReceiver, type Receiver } from '../helpers/notification-receiver.js';
import { csrfOf, PayerSession } from '../helpers/payer-session.js';
import { logLines, quipu, serveOnFreePort, type ServerProcess } from '../helpers/process.js';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const suffix = randomBytes(4).toString('hex');
const MIGRATOR = `quipu_migrator_${suffix}`;
const SERVICE = `quipu_service_${suffix}`;
const DATABASE = `quipu_roles_${suffix}`;

const urlAs = (role: string) => {
  const url = new URL(ADMIN_URL);
  url.username = role;
  url.pathname = `/${DATABASE}`;
  return url.toString();
};

async function asRole<T>(role: string, work: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: role === 'admin' ? ADMIN_URL : urlAs(role) });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/** The statements docs/security.md gives, as the database's administrator runs them, with this test's names. */
const BEFORE_MIGRATING = [
  `create role ${MIGRATOR} login`,
  `create role ${SERVICE} login`,
  `create database ${DATABASE} owner ${MIGRATOR}`,
  `revoke all on database ${DATABASE} from public`,
  `grant connect on database ${DATABASE} to ${SERVICE}`,
];
const IN_THE_DATABASE = [
  `revoke all on schema public from public`,
  `grant usage on schema public to ${SERVICE}`,
  `alter default privileges for role ${MIGRATOR} in schema public grant select, insert, update, delete on tables to ${SERVICE}`,
  `alter default privileges for role ${MIGRATOR} in schema public grant usage, select on sequences to ${SERVICE}`,
];
const AFTER_MIGRATING = [`revoke update on audit_log from ${SERVICE}`];

describe.skipIf(testDatabaseKind() !== 'postgres')('the service under a least-privilege PostgreSQL role', () => {
  const dataDir = `/tmp/quipu-roles-${suffix}`;
  const env = {
    DATABASE_URL: urlAs(SERVICE),
    DATA_DIR: dataDir,
    QUIPU_ENCRYPTION_KEY: 'c3'.repeat(32),
    LOG_LEVEL: 'info',
    DEMO_ACCOUNT: 'false',
    DELIVERY_POLL_MS: '50',
  };
  const started: ServerProcess[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    await asRole('admin', async (db) => {
      for (const statement of BEFORE_MIGRATING) await db.query(statement);
    });
    // The default privileges are set by the administrator in the database itself, before any table exists.
    const admin = new URL(ADMIN_URL);
    admin.pathname = `/${DATABASE}`;
    const inDatabase = new pg.Client({ connectionString: admin.toString() });
    await inDatabase.connect();
    for (const statement of IN_THE_DATABASE) await inDatabase.query(statement);
    await inDatabase.end();
  });
  afterAll(async () => {
    for (const server of started) await server.stop();
    await receiver?.close();
    await asRole('admin', async (db) => {
      await db.query(`drop database if exists ${DATABASE} with (force)`);
      await db.query(`drop role if exists ${SERVICE}`);
      await db.query(`drop role if exists ${MIGRATOR}`);
    });
  });

  it('migrates with the migration role, then serves, delivers and runs its jobs with the service role alone', { timeout: 180_000 }, async () => {
    // The service role cannot migrate: a fresh database stays untouched.
    const refused = await quipu(['migrate'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('permission denied for schema public');

    const migrated = await quipu(['migrate'], { ...env, DATABASE_URL: urlAs(MIGRATOR) });
    expect(migrated.code, migrated.stderr).toBe(0);
    await asRole(MIGRATOR, async (db) => {
      for (const statement of AFTER_MIGRATING) await db.query(statement);
    });

    const created = await quipu(
      ['merchants', 'create', '--name', 'Least privilege', '--notify-url', receiver.url, '--email', 'owner@roles.test', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout);
    const server = await serveOnFreePort(env, started);

    const payment = await client(server.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Least privilege' });
    expect(payment.status).toBe(200);
    const paid = await quipu(['payments', 'pay', payment.body.payment_id], env);
    expect(paid.code, paid.stderr).toBe(0);
    await receiver.waitFor((requests) => requests.some((r) => r.body.includes(payment.body.payment_id)));
    expect(
      signedBy(
        account.secret,
        receiver.requests.find((r) => r.body.includes(payment.body.payment_id))!,
      ),
    ).toBe(true);

    const session = new PayerSession(server.baseUrl);
    const form = await session.get('/dashboard/sign-in');
    const signedIn = await session.post('/dashboard/sign-in', { _csrf: csrfOf(form), email: account.email, password: account.password });
    expect(signedIn.status).toBe(303);

    const rotated = await quipu(['keys', 'rotate', '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const sealed = await quipu(['keys', 'reseal'], env);
    expect(sealed.code, sealed.stderr).toBe(0);
    // The background jobs ran under the role too.
    await eventually(
      () =>
        asRole(
          SERVICE,
          async (db) => (await db.query('select coalesce(sum(runs), 0)::int as n from jobs where last_finished_at is not null')).rows[0].n as number,
        ),
      (runs) => runs > 0,
    );
    expect(logLines(server).filter((line) => Number(line.level) >= 50)).toEqual([]);
  });

  it('gives the service role no power over the schema, and none to edit an audit record', async () => {
    await asRole(SERVICE, async (db) => {
      await expect(db.query('create table intruder (a int)')).rejects.toThrow('permission denied for schema public');
      await expect(db.query('drop table payments')).rejects.toThrow('must be owner of table payments');
      await expect(db.query('alter table merchants add column intruder int')).rejects.toThrow('must be owner of table merchants');
      await expect(db.query('truncate payments')).rejects.toThrow('permission denied for table payments');
      await expect(db.query(`update audit_log set outcome = 'ok'`)).rejects.toThrow('permission denied for table audit_log');
      expect((await db.query('select count(*)::int as n from audit_log')).rows[0].n).toBeGreaterThan(0);
    });
  });
});
