// A developer's first day at the command line, as real processes: `quipu payments pay` through
// DemoBank's payer steps, notified as a payment paid on the pages is; the database each command
// uses, named, and not created by mistake; `--version`; and a `quipu serve` that cannot start.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USER } from '../../src/app/demo-account.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { verifyPassword } from '../../src/domain/password-hash.js';
import { openDatabase } from '../../src/store/database.js';
import { findUserByEmail } from '../../src/store/users.js';
import { createTestDatabase, testDatabaseKind } from '../helpers/database.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { startReceiver, signedBy, type Receiver } from '../helpers/notification-receiver.js';
import { tabAtCoordinates } from '../helpers/payer-session.js';
import { quipu, serveOnFreePort, type ServerProcess } from '../helpers/process.js';
import { useTestServer } from '../helpers/server.js';

let receiver: Receiver;
let worker: DeliveryWorker;
let env: Record<string, string>;

const setup = useTestServer();
beforeAll(async () => {
  receiver = await startReceiver();
  worker = testWorker(setup.server);
  env = { DATABASE_URL: setup.server.database.url, DATA_DIR: setup.server.database.dataDir, LOG_LEVEL: 'warn' };
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
});

// Each command is a process of its own: generous time for a loaded machine.
const PROCESSES = { timeout: 120_000 };

async function createPayment(apiKey = setup.account.api_key, fields: Record<string, string> = { notify_url: receiver.url }): Promise<string> {
  const created = await client(setup.server.baseUrl, apiKey).post('/v3/payments', { amount: 2000, currency: 'CLP', subject: 'First day', ...fields });
  expect(created.status).toBe(200);
  return created.body.payment_id;
}

const notificationOf = (paymentId: string) => receiver.requests.find((r) => r.body.includes(`"payment_id":"${paymentId}"`));
const attemptsOf = (paymentId: string) => setup.server.ctx.db.selectFrom('payment_attempts').select('state').where('payment_id', '=', paymentId).execute();

describe('quipu payments pay', PROCESSES, () => {
  it('pays through DemoBank as a payer would: done, reconciled, and notified as a payment paid on the pages', async () => {
    const byCommand = await createPayment();
    const byPages = await createPayment();
    const paid = await quipu(['payments', 'pay', byCommand], env);
    expect(paid.code).toBe(0);
    expect(paid.stdout).toBe(`${byCommand}  done/normal\n`);
    const tab = await tabAtCoordinates(setup.server.baseUrl, byPages);
    expect((await tab.submit({ c1: '11', c2: '22', c3: '33' })).status).toBe(303);

    await receiver.waitFor(() => notificationOf(byCommand) !== undefined && notificationOf(byPages) !== undefined);
    expect(signedBy(setup.account.secret, notificationOf(byCommand)!)).toBe(true);
    const [command, pages] = [byCommand, byPages].map((id) => JSON.parse(notificationOf(id)!.body));
    expect(command).toMatchObject({
      bank: 'DemoBank',
      bank_id: 'Bawdf',
      personal_identifier: '11.111.111-1',
      payment_method: 'simplified_transfer',
      amount: '2000.0000',
    });
    // The same notification but for what is each payment's own.
    const own = ['payment_id', 'receipt_url', 'conciliation_date', 'payer_email'];
    const without = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([key]) => !own.includes(key)));
    expect(without(command)).toEqual(without(pages));
    // DemoBank was asked for the transfer, as for any payer's.
    const journal = JSON.parse((await quipu(['demobank', 'requests', '--payment', byCommand, '--json'], env)).stdout);
    expect(journal.map((r: { operation: string; answer: string }) => `${r.operation} ${r.answer}`)).toEqual(['transfer executed']);
    expect(await attemptsOf(byCommand)).toEqual([{ state: 'executed' }]);
  });

  it("--fail and --uncertain give DemoBank's other answers; nothing is notified until the bank confirms", async () => {
    const failing = await createPayment();
    const failed = await quipu(['payments', 'pay', failing, '--fail'], env);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toBe(`${failing}  pending/pending\n`);
    expect(await attemptsOf(failing)).toEqual([{ state: 'failed' }]);

    const unsure = await createPayment();
    const uncertain = await quipu(['payments', 'pay', unsure, '--uncertain'], env);
    expect(uncertain.code).toBe(0);
    expect(uncertain.stdout).toMatch(new RegExp(`^${unsure}  verifying/`));
    const confirmed = await quipu(['demobank', 'confirm', unsure], env);
    expect(confirmed.stdout).toBe(`${unsure}  done/normal\n`);
    await receiver.waitFor(() => notificationOf(unsure) !== undefined);
    expect(notificationOf(failing)).toBeUndefined();

    const both = await quipu(['payments', 'pay', unsure, '--fail', '--uncertain'], env);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain("option '--fail' cannot be used with option '--uncertain'");
  });

  it("refuses a production account's payment, and one that cannot be paid, in one line and changing nothing", async () => {
    const production = await setup.server.account({ developer: false });
    // Production accounts notify public addresses only: this one is never notified.
    const theirs = await createPayment(production.api_key, {});
    const refused = await quipu(['payments', 'pay', theirs], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('quipu: DemoBank pays payments of developer-mode accounts only; this one belongs to a production account\n');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(await attemptsOf(theirs)).toEqual([]);

    const done = await createPayment();
    expect((await quipu(['payments', 'pay', done], env)).code).toBe(0);
    const again = await quipu(['payments', 'pay', done], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('quipu: The payment cannot be paid');
    expect(await attemptsOf(done)).toEqual([{ state: 'executed' }]);

    const unknown = await quipu(['payments', 'pay', 'nosuchpaymnt'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('not found');
  });
});

describe('the database a command uses', PROCESSES, () => {
  it('is named on stderr; the default one is not created where there is none, and the command says where it looked', async () => {
    const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-elsewhere-')));
    try {
      // Neither DATABASE_URL nor DATA_DIR: the default, data/quipu.db in the folder the command runs in.
      const unset = { DATABASE_URL: '', DATA_DIR: '', LOG_LEVEL: 'warn' };
      const file = path.join(folder, 'data', 'quipu.db');
      const listed = await quipu(['merchants', 'list'], unset, folder);
      expect(listed.code).toBe(2);
      const [named, refusal, ...rest] = listed.stderr.split('\n');
      expect(named).toBe(`database: sqlite ${file}`);
      expect(refusal).toMatch(new RegExp(`^quipu: no database at ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*\`quipu migrate\`$`));
      expect(rest).toEqual(['']);
      expect(fs.existsSync(path.join(folder, 'data'))).toBe(false);

      const migrated = await quipu(['migrate'], unset, folder);
      expect(migrated.code).toBe(0);
      expect(fs.existsSync(file)).toBe(true);
      const again = await quipu(['merchants', 'list'], unset, folder);
      expect(again.code).toBe(0);
      expect(again.stderr).toBe(`database: sqlite ${file}\n`);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('is named without its password on PostgreSQL', async () => {
    if (testDatabaseKind() !== 'postgres') {
      const shown = await quipu(['merchants', 'list'], env);
      expect(shown.stderr).toBe(`database: sqlite ${setup.server.database.url.slice('sqlite:'.length)}\n`);
      return;
    }
    // The server trusts local connections: the password is sent, and must not be shown.
    const url = new URL(setup.server.database.url);
    url.password = 'not-for-the-screen';
    const shown = await quipu(['merchants', 'list'], { ...env, DATABASE_URL: url.toString() });
    expect(shown.code).toBe(0);
    url.password = '';
    expect(shown.stderr).toBe(`database: postgres ${url.toString()}\n`);
  });

  it('that cannot be reached or read is said in one line, without a stack trace, by one-shot commands and serve alike', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-unusable-'));
    try {
      const garbage = path.join(folder, 'not-a-database.db');
      fs.writeFileSync(garbage, 'this is not a SQLite database, and longer than its header'.repeat(20));
      const cases = [
        { url: 'postgres://postgres@127.0.0.1:1/quipu', reason: /^quipu: cannot use the database: connect ECONNREFUSED 127\.0\.0\.1:1\. Check DATABASE_URL/ },
        { url: `sqlite:${garbage}`, reason: /^quipu: cannot use the database: file is not a database\. Check DATABASE_URL/ },
      ];
      for (const { url, reason } of cases) {
        for (const args of [['payments', 'list', '--receiver', '123456'], ['serve']]) {
          const result = await quipu(args, { DATABASE_URL: url, DATA_DIR: folder, LOG_LEVEL: 'warn', PORT: '0', QUIPU_ENCRYPTION_KEY: 'ab'.repeat(32) });
          const lines = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('database: '));
          expect(result.code, `${args[0]} ${url}`).toBe(2);
          expect(lines, `${args[0]} ${url}`).toHaveLength(1);
          expect(lines[0]).toMatch(reason);
        }
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('quipu --version prints the version of package.json', async () => {
    const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const printed = await quipu(['--version'], env);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${version}\n`);
  });
});

describe('quipu serve that cannot start', PROCESSES, () => {
  it('says why in one line, without a stack trace, and a later start still shows the demo account', async () => {
    const fresh = await createTestDatabase();
    const started: ServerProcess[] = [];
    const occupied = net.createServer();
    await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
    try {
      const port = (occupied.address() as net.AddressInfo).port;
      const freshEnv = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, LOG_LEVEL: 'warn', QUIPU_ENCRYPTION_KEY: 'ab'.repeat(32) };
      const expectOneLine = async (portSetting: string, line: string) => {
        const result = await quipu(['serve'], { ...freshEnv, PORT: portSetting });
        expect(result.code, portSetting).toBe(2);
        expect(result.stdout, portSetting).toBe('');
        expect(result.stderr, portSetting).toBe(`${line}\n`);
      };
      await expectOneLine(
        String(port),
        `quipu: cannot start: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to another port`,
      );
      await expectOneLine('eighty', 'quipu: refusing to start: PORT must be a whole number, got "eighty"');
      await expectOneLine('70000', 'quipu: refusing to start: PORT must be between 0 and 65535, got 70000');

      // The failed start left the database without an account: the first start that listens shows one.
      const serving = await serveOnFreePort(freshEnv, started);
      const output = await serving.waitFor(/api_key\s+[0-9a-f-]{36}/);
      expect(output).toContain('Quipu created a developer-mode demo account');
      expect(output).toContain(`database: ${fresh.kind === 'sqlite' ? `sqlite ${fresh.url.slice('sqlite:'.length)}` : 'postgres '}`);
    } finally {
      occupied.close();
      for (const p of started) await p.stop();
      await fresh.drop();
    }
  });
});

describe('fixed demo credentials (DEMO_API_KEY, DEMO_SECRET, DEMO_RECEIVER_ID, DEMO_PASSWORD)', PROCESSES, () => {
  const FIXED = {
    DEMO_API_KEY: '51f210fe-2fa4-4205-b21b-f1d72d92ebb1',
    DEMO_SECRET: 'c08ccb125eb62e608d300eb5ad03c6b91cce44ae',
    DEMO_RECEIVER_ID: '614785',
    DEMO_PASSWORD: 'demo-password-for-ci',
  };

  it('are the demo account of a fresh installation, and work', async () => {
    const fresh = await createTestDatabase();
    const started: ServerProcess[] = [];
    try {
      const serving = await serveOnFreePort({ DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, LOG_LEVEL: 'warn', ...FIXED }, started);
      const output = await serving.waitFor(/password\s+\S+/);
      expect(output).toMatch(/receiver_id\s+614785\n\s+secret\s+c08ccb125eb62e608d300eb5ad03c6b91cce44ae\n\s+api_key\s+51f210fe-2fa4-4205-b21b-f1d72d92ebb1\n/);
      expect((await client(serving.baseUrl, FIXED.DEMO_API_KEY).get('/v3/banks')).status).toBe(200);
      const shown = await quipu(['merchants', 'show', FIXED.DEMO_RECEIVER_ID, '--show-secret', '--json'], {
        DATABASE_URL: fresh.url,
        DATA_DIR: fresh.dataDir,
        LOG_LEVEL: 'warn',
      });
      expect(JSON.parse(shown.stdout)).toMatchObject({ receiver_id: 614785, developer: true, secret: FIXED.DEMO_SECRET });
      const opened = openDatabase(fresh.url);
      try {
        const user = await findUserByEmail(opened.db, DEMO_USER);
        expect(user?.receiver_id).toBe(614785);
        expect(await verifyPassword(FIXED.DEMO_PASSWORD, user!.password_hash)).toBe(true);
      } finally {
        await opened.close();
      }
    } finally {
      for (const p of started) await p.stop();
      await fresh.drop();
    }
  });

  it.each([
    ['DEMO_API_KEY', 'not-a-key', 'DEMO_API_KEY must be an API key: a UUID in lower case, such as 51f210fe-2fa4-4205-b21b-f1d72d92ebb1'],
    ['DEMO_SECRET', 'c08ccb125eb62e608d300eb5ad03c6b9', 'DEMO_SECRET must be a receiver secret: 40 hexadecimal digits in lower case (it has 32 characters)'],
    ['DEMO_RECEIVER_ID', '61478a', 'DEMO_RECEIVER_ID must be a receiver id: six digits, not starting with 0, got "61478a"'],
    ['DEMO_PASSWORD', 'short', 'DEMO_PASSWORD must be at least 8 characters'],
  ])('refuses a bad %s in one line at start', async (name, value, message) => {
    const result = await quipu(['serve'], { ...env, PORT: '0', ...FIXED, [name]: value });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`quipu: refusing to start: ${message}\n`);
  });
});
