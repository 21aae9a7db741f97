// compose.yaml's installation run as plain processes of the built service, one per service, each
// with its command and the environment compose would give it (the suite needs no container
// runtime; scripts/container-smoke.sh runs the image itself): `quipu migrate` once to completion,
// then two `quipu serve` with RUN_WORKER=false and one `quipu worker`, on one PostgreSQL database.
// Only what a container changes is replaced: the port and interface each API listens on, DATA_DIR,
// and the secrets mounted at /run/secrets, which are the operator's files (the database URL among
// them names the test's database, standing for the postgres service). Run twice: as the
// file stands (SANDBOX=false, a production account paid through the operator API), and in
// developer mode, whose payment is paid at DemoBank and notified by the worker to a receiver on
// this machine (SANDBOX=false refuses to notify private and loopback addresses,
// docs/notifications.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ComposeService, composeSecrets, composeServices, MissingVariable, runToCompletion, startOrder, withSecretsMounted } from '../helpers/compose.js';
import { testDatabaseKind } from '../helpers/database.js';
import { call, client } from '../helpers/http.js';
import { eventually, signedBy, startReceiver } from '../helpers/notification-receiver.js';
import { freePort, quipu, type ServerProcess, startServerProcess, waitForHttp, withServerProcesses } from '../helpers/process.js';
import { COLLECTION_SETTINGS } from '../helpers/production.js';

/** What an operator's `.env` beside compose.yaml holds: every variable the file marks required. */
const OPERATOR_VARIABLES: Record<string, string> = {
  PUBLIC_BASE_URL: 'https://pay.example',
  DASHBOARD_BASE_URL: 'https://dashboard.pay.example',
  LOG_DESTINATION: 'stdout',
  ...COLLECTION_SETTINGS,
};

/** What the operator's secrets folder holds besides the database's URL and password (no mail server: emails stay in the inbox). */
const OPERATOR_SECRETS = { quipu_encryption_key: '4e'.repeat(32), operator_token: '7a'.repeat(32), smtp_url: '' };
const SECRETS_MOUNTED = ['database_url', 'quipu_encryption_key', 'operator_token', 'smtp_url'];

const secretFolders = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-compose-secrets-'));
afterAll(() => fs.rmSync(secretFolders, { recursive: true, force: true }));

/** The variables with QUIPU_SECRETS_DIR naming a new folder of the operator's secret files, the database's URL `databaseUrl`. */
function withOperatorSecrets(variables: Record<string, string>, databaseUrl: string): Record<string, string> {
  const folder = fs.mkdtempSync(path.join(secretFolders, 'secrets-'));
  const files = { ...OPERATOR_SECRETS, database_url: databaseUrl, postgres_password: 'a-password-the-test-database-does-not-need' };
  for (const [name, value] of Object.entries(files)) fs.writeFileSync(path.join(folder, name), `${value}\n`, { mode: 0o600 });
  return { ...variables, QUIPU_SECRETS_DIR: folder };
}

interface Topology {
  /** The environment of the first API service, which one-shot commands run with (`docker compose run --rm api-1 …`). */
  commandEnv: Record<string, string>;
  apis: (ServerProcess & { baseUrl: string })[];
  worker: ServerProcess;
}

/**
 * Every service of compose.yaml that runs Quipu's image, in the order compose starts them: a service
 * another waits to see completed is run to completion; the others keep running. The postgres
 * service is the test's database.
 */
async function startTopology(
  variables: Record<string, string>,
  { database, started }: { database: { url: string; dataDir: string }; started: ServerProcess[] },
): Promise<Topology> {
  const withSecrets = withOperatorSecrets(variables, database.url);
  const services = composeServices(withSecrets);
  const secrets = composeSecrets(withSecrets);
  const oneShot = runToCompletion(services);
  const running: (ServerProcess & { env: Record<string, string>; baseUrl?: string })[] = [];
  for (const name of startOrder(services)) {
    const service: ComposeService = services[name]!;
    if (service.build === undefined) continue;
    const env = { ...withSecretsMounted(service, secrets), DATA_DIR: database.dataDir, HOST: '127.0.0.1', PORT: String(await freePort()) };
    if (oneShot.has(name)) {
      const result = await quipu(service.command!, env);
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      continue;
    }
    const child = startServerProcess(env, service.command);
    started.push(child);
    running.push(Object.assign(child, { env, baseUrl: service.command![0] === 'serve' ? `http://127.0.0.1:${env.PORT}` : undefined }));
  }
  const apis = running.filter((child) => child.baseUrl !== undefined) as (ServerProcess & { baseUrl: string; env: Record<string, string> })[];
  // The image's health check: ready, not only listening.
  for (const api of apis) await waitForHttp(`${api.baseUrl}/readyz`);
  const worker = running.find((child) => child.baseUrl === undefined)!;
  await worker.waitFor('background jobs started');
  return { commandEnv: apis[0]!.env, apis, worker };
}

describe('compose.yaml', () => {
  it('runs migrate once to completion, then two API processes without workers and one worker', () => {
    const services = composeServices(OPERATOR_VARIABLES);
    const quipuServices = Object.entries(services).filter(([, service]) => service.build !== undefined);
    expect(Object.fromEntries(quipuServices.map(([name, service]) => [name, service.command]))).toEqual({
      migrate: ['migrate'],
      'api-1': ['serve'],
      'api-2': ['serve'],
      worker: ['worker'],
    });
    expect([...runToCompletion(services)]).toEqual(['migrate']);
    expect(quipuServices.map(([name, service]) => [name, service.environment?.RUN_WORKER])).toEqual([
      ['migrate', undefined],
      ['api-1', 'false'],
      ['api-2', 'false'],
      ['worker', undefined],
    ]);
    expect(startOrder(services).indexOf('migrate')).toBeLessThan(startOrder(services).indexOf('api-1'));
    expect(services.postgres?.image).toMatch(/^postgres:/);
  });

  it('refuses to start without each production setting an operator must fill in, naming it', () => {
    for (const name of Object.keys(OPERATOR_VARIABLES)) {
      const without = Object.fromEntries(Object.entries(OPERATOR_VARIABLES).filter(([variable]) => variable !== name));
      expect(() => composeServices(without), name).toThrow(MissingVariable);
      expect(() => composeServices(without), name).toThrow(`required variable ${name} is missing a value`);
      expect(() => composeServices({ ...without, [name]: '' }), name).toThrow(MissingVariable);
    }
    const settings = composeServices(OPERATOR_VARIABLES)['api-1']!.environment!;
    expect(settings).toMatchObject({ SANDBOX: 'false', ...OPERATOR_VARIABLES });
  });

  it('hands every secret over as a file mounted from the secrets folder, none in the environment', () => {
    const services = composeServices(OPERATOR_VARIABLES);
    for (const [name, service] of Object.entries(services).filter(([, service]) => service.build !== undefined)) {
      expect(service.secrets, name).toEqual(SECRETS_MOUNTED);
      expect(service.environment, name).toMatchObject({
        DATABASE_URL_FILE: '/run/secrets/database_url',
        QUIPU_ENCRYPTION_KEY_FILE: '/run/secrets/quipu_encryption_key',
        OPERATOR_TOKEN_FILE: '/run/secrets/operator_token',
        SMTP_URL_FILE: '/run/secrets/smtp_url',
      });
      for (const secret of ['DATABASE_URL', 'QUIPU_ENCRYPTION_KEY', 'OPERATOR_TOKEN', 'SMTP_URL']) expect(service.environment?.[secret], name).toBeUndefined();
    }
    expect(services.postgres).toMatchObject({ secrets: ['postgres_password'], environment: { POSTGRES_PASSWORD_FILE: '/run/secrets/postgres_password' } });
    expect(services.postgres?.environment?.POSTGRES_PASSWORD).toBeUndefined();
    const folder = path.dirname(new URL('../../compose.yaml', import.meta.url).pathname);
    expect(composeSecrets(OPERATOR_VARIABLES).database_url).toBe(path.join(folder, 'secrets', 'database_url'));
    expect(composeSecrets({ ...OPERATOR_VARIABLES, QUIPU_SECRETS_DIR: '/etc/quipu' }).operator_token).toBe('/etc/quipu/operator_token');
  });
});

describe.skipIf(testDatabaseKind() !== 'postgres')("compose.yaml's processes on PostgreSQL", () => {
  describe('as the file stands: a production installation', () => {
    const installation = withServerProcesses();

    it('migrates, serves on both API processes, and a production payment created on one is read and paid on the other', { timeout: 180_000 }, async () => {
      const { apis, worker, commandEnv } = await startTopology(OPERATOR_VARIABLES, installation);
      expect(apis).toHaveLength(2);
      // The migrations ran in the migrate service only: the others found them applied.
      for (const child of [...apis, worker]) expect(child.output()).not.toContain('database migrated');
      for (const api of apis) expect(api.output()).not.toContain('notification delivery worker started');
      expect(worker.output()).toContain('notification delivery worker started');

      const created = await quipu(['merchants', 'create', '--name', 'Compose production', '--production', '--json'], commandEnv);
      expect(created.code, created.stderr).toBe(0);
      const account = JSON.parse(created.stdout);
      const payment = await client(apis[0]!.baseUrl, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'Compose production' });
      expect(payment.status, JSON.stringify(payment.body)).toBe(200);
      expect(payment.body.payment_url).toMatch(/^https:\/\/pay\.example\/payment\//);
      const read = await client(apis[1]!.baseUrl, account.api_key).get(`/v3/payments/${payment.body.payment_id}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ payment_id: payment.body.payment_id, status: 'pending', amount: 1000 });

      // The bank's credit, posted to the other API process with the operator token of the secrets folder.
      const credit = await call(apis[1]!.baseUrl, 'POST', '/operator/v1/credits', {
        headers: { authorization: `Bearer ${OPERATOR_SECRETS.operator_token}` },
        body: {
          credits: [
            {
              bank_reference: 'COMPOSE-1',
              account: COLLECTION_SETTINGS.COLLECTION_ACCOUNT_NUMBER,
              amount: 1000,
              currency: 'CLP',
              reference: payment.body.payment_id,
              credited_at: new Date().toISOString(),
            },
          ],
        },
      });
      expect(credit.status, JSON.stringify(credit.body)).toBe(200);
      expect(credit.body.matched).toBe(1);
      const paid = await client(apis[0]!.baseUrl, account.api_key).get(`/v3/payments/${payment.body.payment_id}`);
      expect(paid.body.status).toBe('done');
    });
  });

  describe('in developer mode (SANDBOX=true)', () => {
    const installation = withServerProcesses();

    it('a payment created on one API process is read on the other, paid at DemoBank, and notified by the worker', { timeout: 180_000 }, async () => {
      const receiver = await startReceiver();
      try {
        const { apis, commandEnv } = await startTopology({ ...OPERATOR_VARIABLES, SANDBOX: 'true' }, installation);
        const created = await quipu(['merchants', 'create', '--name', 'Compose developer', '--notify-url', receiver.url, '--json'], commandEnv);
        expect(created.code, created.stderr).toBe(0);
        const account = JSON.parse(created.stdout);

        const payment = await client(apis[0]!.baseUrl, account.api_key).post('/v3/payments', { amount: 2500, currency: 'CLP', subject: 'Compose developer' });
        expect(payment.status, JSON.stringify(payment.body)).toBe(200);
        const id = payment.body.payment_id as string;
        const read = await client(apis[1]!.baseUrl, account.api_key).get(`/v3/payments/${id}`);
        expect(read.body).toMatchObject({ payment_id: id, status: 'pending', amount: 2500 });

        const paid = await quipu(['payments', 'pay', id], commandEnv);
        expect(paid.code, paid.stderr).toBe(0);
        // Only the worker delivers: both API processes run with RUN_WORKER=false.
        await receiver.waitFor((requests) => requests.some((request) => request.body.includes(id)), 30_000);
        const notification = receiver.requests.find((request) => request.body.includes(id))!;
        expect(signedBy(account.secret, notification)).toBe(true);
        // The link it carries is the file's PUBLIC_BASE_URL, whichever process wrote it.
        expect(JSON.parse(notification.body)).toMatchObject({ payment_id: id, receipt_url: expect.stringMatching(/^https:\/\/pay\.example\//) });
        const done = await eventually(
          () => client(apis[1]!.baseUrl, account.api_key).get(`/v3/payments/${id}`),
          (response) => response.body.status === 'done',
        );
        expect(done.body.receipt_url).toMatch(/^https:\/\/pay\.example\//);
      } finally {
        await receiver.close();
      }
    });
  });
});
