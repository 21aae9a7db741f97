// The npm package, as someone without the repository gets it: `npm pack`'s tarball installed into
// an empty folder outside the repository, which then runs `quipu serve` (on the suite's database
// kind), every command of `quipu --help`, and a payment paid on the payer pages in chromium. The
// dependencies come from npm as for anyone (the cache `npm ci` filled first); better-sqlite3's addon
// from a mirror of the one this checkout compiled (`npm_config_better_sqlite3_binary_host`, as the
// README tells), so that no test compiles SQLite.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STYLESHEET_PATH } from '../../src/http/html.js';
import { payWithDemoBank, useBrowser } from '../helpers/browser.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { client } from '../helpers/http.js';
import { type AddonMirror, addonMirror, emptyProject, installPackage, packQuipu, ROOT } from '../helpers/package.js';
import { freePort, quipu, type ServerProcess, startProcess, waitForHttp } from '../helpers/process.js';

const run = promisify(execFile);
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
const INSTALL = { timeout: 600_000 };

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-package-'));
const app = path.join(folder, 'app');
const installed = path.join(app, 'node_modules', 'quipu');
const bin = path.join(installed, 'bin', 'quipu.js');
let mirror: AddonMirror;
let database: TestDatabase;
let env: Record<string, string>;
let server: ServerProcess | undefined;
let baseUrl: string;
let apiKey: string;
let receiverId: string;

interface Command {
  args: string[];
  says: RegExp;
  code?: number;
  stays?: boolean;
}

/** The installed `quipu`, run in the folder it was installed in. */
const installedQuipu = (args: string[]) => quipu(args, env, app, bin);

beforeAll(async () => {
  const tarball = await packQuipu(folder);
  mirror = await addonMirror(folder);
  emptyProject(app);
  await installPackage(app, tarball, mirror);
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, DATA_DIR: path.join(app, 'data'), LOG_LEVEL: 'info' };
  const port = await freePort();
  server = startProcess(process.execPath, [bin, 'serve'], { ...env, PORT: String(port) }, app);
  baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/readyz`, 60_000);
}, INSTALL.timeout);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  mirror?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

describe('the npm package, installed into an empty folder', () => {
  it('holds the compiled service and its assets, none of the repository, and takes no development dependency', () => {
    // npm-shrinkwrap.json: the lockfile, which the image's `npm ci --omit=dev` installs from (Dockerfile).
    expect(fs.readdirSync(installed).sort()).toEqual(['README.md', 'bin', 'ci', 'dist', 'npm-shrinkwrap.json', 'package.json']);
    for (const asset of ['dist/cli/main.js', 'dist/http/payer/payer.css', 'dist/http/dashboard/dashboard.css'])
      expect(fs.existsSync(path.join(installed, asset))).toBe(true);
    // The build's and the tests' tools (yaml, also a development dependency, is the Swagger plugins' own).
    for (const tool of ['esbuild', 'tsx', 'typescript', 'vitest', 'playwright-core', 'prettier', 'autocannon']) {
      expect(fs.existsSync(path.join(app, 'node_modules', tool)), tool).toBe(false);
    }
    // The addon came from the mirror: nothing was compiled.
    expect(mirror.asked).toHaveLength(1);
    expect(fs.existsSync(path.join(app, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(true);
  });

  it('answers --version through npx', async () => {
    const { stdout } = await run('npx', ['--no-install', 'quipu', '--version'], { cwd: app });
    expect(stdout.trim()).toBe(VERSION);
  });

  it('serves, with the demo account it prints', async () => {
    const printed = await server!.waitFor(/api_key +\S+/);
    apiKey = /api_key +(\S+)/.exec(printed)![1]!;
    receiverId = /receiver_id +(\d+)/.exec(printed)![1]!;
    expect((await client(baseUrl, apiKey).get('/v3/banks')).status).toBe(200);
  });
});

describe('the installed package', () => {
  const held = useBrowser();
  let page: Page;
  beforeAll(async () => {
    page = await (await held.browser.newContext()).newPage();
  });

  it('takes a payment paid on its payer pages in chromium', async () => {
    const api = client(baseUrl, apiKey);
    const created = await api.post('/v3/payments', { amount: 1500, currency: 'CLP', subject: 'From the package' });
    expect(created.status).toBe(200);
    const stylesheet = await fetch(`${baseUrl}${STYLESHEET_PATH}`);
    expect([stylesheet.status, (await stylesheet.text()).length > 0]).toEqual([200, true]);
    await payWithDemoBank(page, created.body.payment_url, ['11', '22', '33']);
    await expect.poll(async () => (await api.get(`/v3/payments/${created.body.payment_id}`)).body.status, { timeout: 30_000 }).toBe('done');
  });

  /**
   * What each command of `quipu --help` is run with, and what it must print: to its end and exit
   * code (0 unless given), or, for a command that runs until stopped (`stays`), until it says so.
   */
  const commands = (paymentId: string, statement: string): Record<string, Command | 'serve'> => ({
    serve: 'serve',
    migrate: { args: ['migrate'], says: /up to date/ },
    worker: { args: ['worker'], stays: true, says: /notification delivery worker started/ },
    merchants: { args: ['merchants', 'show', receiverId, '--json'], says: /"collect_accounts"/ },
    notifications: { args: ['notifications', 'list'], says: /STATUS/ },
    emails: { args: ['emails', 'list'], says: /STATUS/ },
    events: { args: ['events', 'list'], says: /STATUS/ },
    listen: { args: ['listen'], stays: true, says: /listening/ },
    clock: { args: ['clock', 'show'], says: /developer clock/ },
    keys: { args: ['keys', 'list'], says: /KID/ },
    reconcile: { args: ['reconcile', statement, '--json'], says: /"matched":1/ },
    credits: { args: ['credits', 'list'], says: /pkg-credit-1/ },
    payments: { args: ['payments', 'pay', paymentId], says: new RegExp(`${paymentId}  done/normal`) },
    subscriptions: { args: ['subscriptions', 'list'], says: /STATUS/ },
    descriptors: { args: ['descriptors', 'show', 'no-such-operation'], code: 2, says: /Operation not found/ },
    demobank: { args: ['demobank', 'requests'], says: /transfer/ },
    scenarios: { args: ['scenarios', 'list'], says: /transfer-pays/ },
    sandbox: { args: ['sandbox', 'create', '--name', 'From the package'], says: /"api_key"/ },
    jobs: { args: ['jobs', 'list'], says: /NEXT RUN/ },
    users: { args: ['users', 'list', receiverId], says: /demo@quipu\.local/ },
    audit: { args: ['audit', 'verify'], says: /chain intact/ },
  });

  it('runs every command of `quipu --help`', async () => {
    const help = await installedQuipu(['--help']);
    const listed = [...help.stdout.slice(help.stdout.indexOf('Commands:')).matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]!).filter((name) => name !== 'help');
    const api = client(baseUrl, apiKey);
    const [toPay, toReconcile] = await Promise.all(
      [1000, 1200].map(async (amount) => (await api.post('/v3/payments', { amount, currency: 'CLP', subject: 'Command' })).body.payment_id as string),
    );
    const collect = JSON.parse((await installedQuipu(['merchants', 'show', receiverId, '--json'])).stdout).collect_accounts[0];
    const statement = path.join(folder, 'statement.csv');
    fs.writeFileSync(
      statement,
      `bank_reference,account,amount,currency,reference,credited_at\npkg-credit-1,${collect},1200,CLP,${toReconcile},${new Date().toISOString()}\n`,
    );
    const table = commands(toPay!, statement);
    expect(Object.keys(table).sort()).toEqual([...listed].sort());

    for (const [name, command] of Object.entries(table)) {
      if (command === 'serve') continue;
      if (command.stays) {
        const running = startProcess(process.execPath, [bin, ...command.args], env, app);
        await running.waitFor(command.says, 60_000);
        await running.stop();
        continue;
      }
      const result = await installedQuipu(command.args);
      expect(result.code, `${name}: ${result.stderr}`).toBe(command.code ?? 0);
      expect(`${result.stdout}${result.stderr}`, name).toMatch(command.says);
    }
    expect((await api.get(`/v3/payments/${toReconcile}`)).body.status).toBe('done');
  });
});
