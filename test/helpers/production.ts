// The settings a production installation (SANDBOX=false) must have for `quipu serve` and
// `quipu worker` to start: its own collection account, a set encryption key, an https address, the
// dashboard's own host and a named log destination. Its secrets come from files, as a secrets
// manager hands them over (config.ts, secretsInEnvironment).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const COLLECTION_SETTINGS = {
  COLLECTION_BANK_ID: 'dfFbF',
  COLLECTION_ACCOUNT_TYPE: 'cuenta_vista',
  COLLECTION_ACCOUNT_NUMBER: '00-123-45678-09',
  COLLECTION_HOLDER_NAME: 'Pagos Andes SpA',
  COLLECTION_HOLDER_RUT: '123456785',
};

export const PRODUCTION_SETTINGS: Record<string, string> = {
  SANDBOX: 'false',
  ...COLLECTION_SETTINGS,
  // A key for tests only, committed: '5f' 32 times.
  QUIPU_ENCRYPTION_KEY_FILE: fileURLToPath(new URL('../fixtures/production-encryption-key', import.meta.url)),
  PUBLIC_BASE_URL: 'https://pay.example',
  DASHBOARD_BASE_URL: 'https://dashboard.pay.example',
  // The test's own process collects the lines.
  LOG_DESTINATION: 'stdout',
  // Stopped at once: the drain that lets a load balancer stop first has its own test (test/cli/stop-and-start.test.ts).
  SHUTDOWN_DRAIN_MS: '0',
};

let folder: string | undefined;

/**
 * `<NAME>_FILE` naming a new file, readable by its owner only, that holds `value` with a final line
 * break, as a mounted secret does: how a production installation is given a secret. The files are
 * removed when the test process exits.
 */
export function secretFileSetting(name: string, value: string): Record<string, string> {
  if (!folder) {
    const made = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-secret-files-'));
    process.once('exit', () => fs.rmSync(made, { recursive: true, force: true }));
    folder = made;
  }
  const file = path.join(folder, `${name.toLowerCase()}-${fs.readdirSync(folder).length}`);
  fs.writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return { [`${name}_FILE`]: file };
}
