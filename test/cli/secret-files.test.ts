// Secrets from a secrets manager (ASVS 13.3.1): each secret setting may be read from the file its
// `<NAME>_FILE` names (a Docker or Kubernetes secret, a Vault agent's rendered file), never both
// ways at once; a production installation started that way serves, its operator token the file's.
// A production `quipu serve` or `quipu worker` refuses a secret given as a plain environment
// variable, naming it and its file, unless the operator says SECRETS_FROM_ENVIRONMENT=true; the
// database's and the mail server's URLs count when they hold a password; one-shot commands and
// developer mode take them as before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, secretsInEnvironment, withSecretFiles } from '../../src/config.js';
import { quipu, serveOnFreePort, startServerProcess, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS } from '../helpers/production.js';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-secrets-'));
/** A secret as a mounted file holds it: with the final line break an editor or `echo` adds. */
const secretFile = (name: string, value: string) => {
  const file = path.join(folder, name);
  fs.writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return file;
};
const TOKEN = 'f'.repeat(16) + '0123456789abcdef0123456789abcdef';

const processes = withServerProcesses();
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

describe('<NAME>_FILE', () => {
  it('reads each secret setting from its file, without the final line break', () => {
    const config = loadConfig({
      DATABASE_URL_FILE: secretFile('database-url', 'postgres://quipu:s3cret@db.internal:5432/quipu?sslmode=verify-full'),
      QUIPU_ENCRYPTION_KEY_FILE: secretFile('key', '5f'.repeat(32)),
      QUIPU_ENCRYPTION_KEY_PREVIOUS_FILE: secretFile('previous', `${'6a'.repeat(32)},${'7b'.repeat(32)}`),
      OPERATOR_TOKEN_FILE: secretFile('token', TOKEN),
      SMTP_URL_FILE: secretFile('smtp', 'smtps://quipu:p%40ss@mail.example:465'),
    });
    expect(config.databaseUrl).toBe('postgres://quipu:s3cret@db.internal:5432/quipu?sslmode=verify-full');
    expect(config.encryptionKey).toBe('5f'.repeat(32));
    expect(config.previousEncryptionKeys).toEqual(['6a'.repeat(32), '7b'.repeat(32)]);
    expect(config.operatorToken).toBe(TOKEN);
    expect(config.smtpUrl).toBe('smtps://quipu:p%40ss@mail.example:465');
  });

  it('refuses a setting given both ways, and a file that cannot be read, naming them', () => {
    expect(() => withSecretFiles({ OPERATOR_TOKEN: TOKEN, OPERATOR_TOKEN_FILE: secretFile('token', TOKEN) })).toThrow(
      new ConfigError('OPERATOR_TOKEN and OPERATOR_TOKEN_FILE are both set: set one of them'),
    );
    const missing = path.join(folder, 'missing');
    expect(() => withSecretFiles({ QUIPU_ENCRYPTION_KEY_FILE: missing })).toThrow(
      new ConfigError(`QUIPU_ENCRYPTION_KEY_FILE names ${missing}, which cannot be read (ENOENT)`),
    );
    // The rules of the setting apply to what the file holds.
    expect(() => loadConfig({ OPERATOR_TOKEN_FILE: secretFile('short', 'x') })).toThrow(/OPERATOR_TOKEN must be at least 32 characters/);
  });

  it('starts a production server whose secrets are all files, with no secret in its environment', async () => {
    const env = filesOnly();
    expect((await quipu(['migrate'], env)).code).toBe(0);
    const server = await serveOnFreePort(env, processes.started);
    await server.waitFor('quipu is listening');
    // /metrics answers in production only to the operator's token: the one read from the file.
    expect((await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${'0'.repeat(48)}` } })).status).toBe(401);
    const worker = startServerProcess(env, ['worker']);
    processes.started.push(worker);
    await worker.waitFor('background jobs started');
  }, 90_000);
});

/** The test's database, with a password in the URL as a production installation's has (trust authentication: never checked). */
function databaseUrl(): string {
  const url = new URL(processes.database.url);
  url.password = 'a-password-the-test-database-does-not-check';
  return url.toString();
}

/** A production installation whose every secret is a file. */
function filesOnly(): Record<string, string> {
  return {
    ...PRODUCTION_SETTINGS,
    DATABASE_URL_FILE: secretFile('url', databaseUrl()),
    // A password that does not expire, which test/cli/database-sign-in.test.ts refuses: accepted here, where files are the point.
    DATABASE_CREDENTIALS_ACCEPTED: 'true',
    DATA_DIR: processes.database.dataDir,
    OPERATOR_TOKEN_FILE: secretFile('operator', TOKEN),
    QUIPU_ENCRYPTION_KEY_PREVIOUS_FILE: secretFile('previous', '6a'.repeat(32)),
    SMTP_URL_FILE: secretFile('smtp', 'smtp://quipu:mail-password@127.0.0.1:2525'),
    // A password, which test/cli/mail-sign-in.test.ts refuses: accepted here, where files are the point.
    SMTP_CREDENTIALS_ACCEPTED: 'true',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'info',
  };
}

const NOT_FROM_ENVIRONMENT = "(or SECRETS_FROM_ENVIRONMENT=true where the platform hands a secrets manager's values over as environment variables)";

/** Each secret given plainly instead of its file, and what the refusal says of it. */
const PLAIN: [string, Record<string, string>, string][] = [
  ['QUIPU_ENCRYPTION_KEY', { QUIPU_ENCRYPTION_KEY: '5f'.repeat(32) }, 'QUIPU_ENCRYPTION_KEY_FILE for QUIPU_ENCRYPTION_KEY'],
  ['QUIPU_ENCRYPTION_KEY_PREVIOUS', { QUIPU_ENCRYPTION_KEY_PREVIOUS: '6a'.repeat(32) }, 'QUIPU_ENCRYPTION_KEY_PREVIOUS_FILE for QUIPU_ENCRYPTION_KEY_PREVIOUS'],
  ['OPERATOR_TOKEN', { OPERATOR_TOKEN: TOKEN }, 'OPERATOR_TOKEN_FILE for OPERATOR_TOKEN'],
  ['DATABASE_URL', { DATABASE_URL: 'postgres://quipu:db-password@127.0.0.1:5432/quipu' }, 'DATABASE_URL_FILE for DATABASE_URL (it holds a password)'],
  ['SMTP_URL', { SMTP_URL: 'smtp://quipu:mail-password@127.0.0.1:2525' }, 'SMTP_URL_FILE for SMTP_URL (it holds a password)'],
];

/** The production settings with `plain` instead of its file. */
function withPlain(plain: Record<string, string>): Record<string, string> {
  const env = filesOnly();
  for (const name of Object.keys(plain)) delete env[`${name}_FILE`];
  return { ...env, ...plain };
}

describe('secrets in the environment of a production installation', () => {
  it('are found by name, the URLs only when they hold a password, none in developer mode or when the operator says so', () => {
    const production = { sandbox: false, secretsFromEnvironment: false };
    expect(
      secretsInEnvironment(production, { OPERATOR_TOKEN_FILE: '/run/secrets/token', DATABASE_URL: 'postgres://quipu@db/quipu?sslmode=verify-full' }),
    ).toEqual([]);
    expect(secretsInEnvironment(production, { DATABASE_URL: 'postgres://quipu:@db/quipu', SMTP_URL: 'smtp://relay.internal:25' })).toEqual([]);
    for (const url of ['postgres://quipu:pw@db1:5432,db2:5432/quipu', 'postgres://quipu@db/quipu?password=pw'])
      expect(secretsInEnvironment(production, { DATABASE_URL: url }), url).toEqual([
        `secrets from files, not environment variables: DATABASE_URL_FILE for DATABASE_URL (it holds a password) ${NOT_FROM_ENVIRONMENT}`,
      ]);
    expect(secretsInEnvironment(production, { OPERATOR_TOKEN: TOKEN, PGPASSWORD: 'pw' })).toEqual([
      `secrets from files, not environment variables: OPERATOR_TOKEN_FILE for OPERATOR_TOKEN, DATABASE_URL_FILE (the password in its URL) for PGPASSWORD ${NOT_FROM_ENVIRONMENT}`,
    ]);
    expect(secretsInEnvironment({ sandbox: true, secretsFromEnvironment: false }, { OPERATOR_TOKEN: TOKEN })).toEqual([]);
    expect(secretsInEnvironment({ sandbox: false, secretsFromEnvironment: true }, { OPERATOR_TOKEN: TOKEN })).toEqual([]);
  });

  describe.each(['serve', 'worker'])('quipu %s', (command) => {
    it.each(PLAIN)('refuses %s given plainly, naming it and its file', async (_name, plain, phrase) => {
      const result = await quipu([command], withPlain(plain));
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(
        `quipu: refusing to start: SANDBOX=false needs secrets from files, not environment variables: ${phrase} ${NOT_FROM_ENVIRONMENT}`,
      );
      // The refusal names settings, never what they hold.
      for (const value of Object.values(plain)) expect(result.stderr).not.toContain(value);
    });
  });

  it('starts with every secret given plainly when the operator says SECRETS_FROM_ENVIRONMENT=true', async () => {
    const plain = Object.assign({}, ...PLAIN.map(([, setting]) => setting), { DATABASE_URL: databaseUrl() });
    const server = await serveOnFreePort({ ...withPlain(plain), SECRETS_FROM_ENVIRONMENT: 'true' }, processes.started);
    expect((await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  }, 90_000);

  it('is no matter to one-shot commands, which may still inspect the installation', async () => {
    const result = await quipu(['merchants', 'list', '--json'], withPlain({ QUIPU_ENCRYPTION_KEY: '5f'.repeat(32), DATABASE_URL: databaseUrl() }));
    expect(result.code, result.stderr).toBe(0);
  });
});
