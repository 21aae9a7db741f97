// Secrets from a secrets manager (ASVS 13.3.1): each secret setting may be read from the file its
// `<NAME>_FILE` names (a Docker or Kubernetes secret, a Vault agent's rendered file), never both
// ways at once; a production installation started that way serves, its operator token the file's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withSecretFiles } from '../../src/config.js';
import { quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
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
    const { QUIPU_ENCRYPTION_KEY, ...settings } = PRODUCTION_SETTINGS;
    const env = {
      ...settings,
      DATABASE_URL_FILE: secretFile('url', processes.database.url),
      DATA_DIR: processes.database.dataDir,
      QUIPU_ENCRYPTION_KEY_FILE: secretFile('key', QUIPU_ENCRYPTION_KEY!),
      OPERATOR_TOKEN_FILE: secretFile('operator', TOKEN),
      RUN_WORKER: 'false',
      LOG_LEVEL: 'info',
    };
    expect((await quipu(['migrate'], env)).code).toBe(0);
    const server = await serveOnFreePort(env, processes.started);
    await server.waitFor('quipu is listening');
    // /metrics answers in production only to the operator's token: the one read from the file.
    expect((await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${'0'.repeat(48)}` } })).status).toBe(401);
  }, 90_000);
});
