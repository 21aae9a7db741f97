// The examples of docs/sandbox-snapshots.md and docs/testing-in-ci.md run as printed, against a
// real `quipu serve` (what the docs' `npm start` runs): each code block is written to a file of its
// own and run by the runner the docs name, in a process of its own, the base URL set the way the
// docs tell the reader to set it (QUIPU_URL; the snapshot example's own constant). The snapshot
// example is a fragment: two tests are added after it, which see its beforeEach restore the account.
// The pytest example runs where a python3 with pytest and requests is found (CI installs Debian's);
// the PHPUnit one needs PHP and Composer's packages, which neither this machine nor CI has.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { serveOnFreePort, withServerProcesses } from '../helpers/process.js';

const execute = promisify(execFile);

/** Runs a command to its end; a failure says what it printed. */
async function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): Promise<{ stdout: string }> {
  try {
    return await execute(command, args, options);
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}
const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');

/** The code blocks of a document in `language`, as printed. */
function codeBlocks(document: string, language: string): string[] {
  const markdown = fs.readFileSync(path.join(ROOT, 'docs', document), 'utf8');
  return [...markdown.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter(([, lang]) => lang === language).map(([, , code]) => code!);
}

/** The one block of `language` whose first line names `file` (`// quipu.test.ts`), as printed. */
function namedBlock(document: string, language: string, file: string): string {
  const named = codeBlocks(document, language).filter((code) => code.split('\n')[0]!.endsWith(` ${file}`));
  expect(named, `${document}: one ${language} block named ${file}`).toHaveLength(1);
  return named[0]!;
}

/** A python3 that has pytest and requests, if there is one. */
async function pythonWithPytest(): Promise<string | undefined> {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      await run(python, ['-c', 'import pytest, requests']);
      return python;
    } catch {
      // not there, or without them
    }
  }
  return undefined;
}

const python = await pythonWithPytest();

describe('the examples of the sandbox documents, run as printed', { timeout: 180_000 }, () => {
  const processes = withServerProcesses();
  let baseUrl: string;
  let folder: string;

  /** Runs a test file of the examples' with vitest's defaults (beforeEach and the others as globals, as under Jest). */
  async function vitest(file: string, code: string): Promise<string> {
    fs.writeFileSync(path.join(folder, file), code);
    const { stdout } = await run(process.execPath, [VITEST, 'run', '--root', folder, '--globals', '--reporter', 'verbose', file], {
      cwd: folder,
      env: { ...process.env, QUIPU_URL: baseUrl, NO_COLOR: '1', FORCE_COLOR: '0' },
      timeout: 150_000,
    });
    return stdout;
  }

  beforeAll(async () => {
    const server = await serveOnFreePort({ DATABASE_URL: processes.database.url, DATA_DIR: processes.database.dataDir }, processes.started);
    baseUrl = server.baseUrl;
    // A folder of the reader's own, outside the repository, where `vitest` is installed.
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-docs-examples-'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(folder, 'vitest.config.mjs'), `export default { cacheDir: ${JSON.stringify(path.join(folder, '.vite'))} };\n`);
  }, 60_000);
  afterAll(() => {
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('creates an account from no body, an empty one and {}: every member is optional (docs/testing-in-ci.md)', async () => {
    const json = { 'content-type': 'application/json' };
    for (const request of [{}, { headers: json }, { headers: json, rawBody: '' }, { headers: json, rawBody: '{}' }]) {
      const created = await call(baseUrl, 'POST', '/sandbox/accounts', request);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body).toEqual({ receiver_id: expect.any(Number), secret: expect.any(String), api_key: expect.any(String) });
      expect((await call(baseUrl, 'GET', '/sandbox/clock', { apiKey: created.body.api_key })).status).toBe(200);
    }
  });

  it('docs/sandbox-snapshots.md: "In a test" records an account and restores it before each test', async () => {
    const [example, ...others] = codeBlocks('sandbox-snapshots.md', 'js');
    expect(others).toEqual([]);
    const printedUrl = "const quipu = 'http://127.0.0.1:3000';";
    expect(example).toContain(printedUrl);
    // What a suite does after the example: it changes the account in one test, and the next finds it restored.
    const tests = `
let made;
test('changes the recorded account', async () => {
  const created = await fetch(\`\${quipu}/v3/payments\`, {
    method: 'POST',
    headers: { 'x-api-key': account.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1000, currency: 'CLP', subject: 'Made in a test' }),
  });
  expect(created.status).toBe(200);
  made = (await created.json()).payment_id;
  expect(snapshot).toMatchObject({ receiver_id: account.receiver_id, snapshot_id: expect.any(String) });
});
test('finds the account as recorded', async () => {
  expect((await fetch(\`\${quipu}/v3/payments/\${made}\`, { headers: { 'x-api-key': account.api_key } })).status).toBe(404);
});
`;
    const output = await vitest('snapshots.test.js', `${example!.replace(printedUrl, `const quipu = ${JSON.stringify(baseUrl)};`)}${tests}`);
    expect(output).toMatch(/Tests\s+2 passed \(2\)/);
  });

  it('docs/testing-in-ci.md: the Vitest file passes', async () => {
    const output = await vitest('quipu.test.ts', namedBlock('testing-in-ci.md', 'ts', 'quipu.test.ts'));
    expect(output).toMatch(/Tests\s+2 passed \(2\)/);
  });

  it.skipIf(python === undefined)('docs/testing-in-ci.md: the pytest file passes', async () => {
    fs.writeFileSync(path.join(folder, 'test_quipu.py'), namedBlock('testing-in-ci.md', 'python', 'test_quipu.py'));
    const { stdout } = await run(python!, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_quipu.py'], {
      cwd: folder,
      env: { ...process.env, QUIPU_URL: baseUrl },
      timeout: 150_000,
    });
    expect(stdout).toMatch(/2 passed/);
  });
});
