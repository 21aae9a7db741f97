// The GitHub Actions action (action.yml) and the GitLab CI example (docs/ci/gitlab-ci.yml), their
// steps run as a script the way their runners run them: the action's inputs and expressions filled
// in, each step in `bash --noprofile --norc -eo pipefail`, with GITHUB_ENV, GITHUB_OUTPUT and
// GITHUB_ACTION_PATH; the GitLab job's before_script in one shell. Both start Quipu from the npm
// package (test/helpers/package.ts) in an empty project, and what they hand the job's tests must
// work: the base URL, the demo account's key, the operator token that makes an account per test.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { client } from '../helpers/http.js';
import { type AddonMirror, addonMirror, emptyProject, installPackage, packQuipu, ROOT } from '../helpers/package.js';
import { freePort } from '../helpers/process.js';

const run = promisify(execFile);

interface Step {
  id?: string;
  if?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}

interface Action {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

interface Ran {
  /** What the steps appended to GITHUB_ENV. */
  env: Record<string, string>;
  /** The action's outputs, from its steps' outputs. */
  outputs: Record<string, string>;
  log: string;
  code: number;
}

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-ci-action-'));
let tarball: string;
let mirror: AddonMirror;
const stops: string[] = [];
const engineDir = path.join(folder, 'engine');

beforeAll(async () => {
  fs.mkdirSync(engineDir);
  tarball = await packQuipu(folder);
  mirror = await addonMirror(folder);
}, 120_000);

afterAll(async () => {
  // A fake engine's stop reads its folder, which the image test gives in its runner's environment.
  for (const stop of stops) await run('bash', ['-c', stop], { env: { ...process.env, FAKE_ENGINE_DIR: engineDir } }).catch(() => undefined);
  mirror?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

/** The runner's `${{ ... }}`: the inputs, and the steps' outputs named by the action's outputs. */
function filledIn(text: string, inputs: Record<string, string>, steps: Record<string, Record<string, string>> = {}): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) return inputs[input[1]!] ?? '';
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
    if (output) return steps[output[1]!]?.[output[2]!] ?? '';
    throw new Error(`an expression this runner does not know: ${expression}`);
  });
}

/** A step's `if`, of the one form the action uses: `inputs.<name> == '<value>'`. */
function holds(condition: string | undefined, inputs: Record<string, string>): boolean {
  if (condition === undefined) return true;
  const comparison = /^inputs\.([\w-]+) == '([^']*)'$/.exec(condition.trim());
  if (!comparison) throw new Error(`a condition this runner does not know: ${condition}`);
  return inputs[comparison[1]!] === comparison[2];
}

/** `NAME=value` lines, as GITHUB_ENV and `env` hold them. */
const assignments = (lines: string[]): Record<string, string> =>
  Object.fromEntries(lines.filter((line) => line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
const keyValues = (file: string) => assignments(fs.readFileSync(file, 'utf8').split('\n'));

/** Runs action.yml's steps in `workspace`, as a GitHub runner would with `given` as its inputs and `runnerEnv` in its environment. */
async function runAction(workspace: string, given: Record<string, string>, runnerEnv: Record<string, string> = {}): Promise<Ran> {
  const action = YAML.parse(fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as Action;
  expect(action.runs.using).toBe('composite');
  for (const name of Object.keys(given)) expect(Object.keys(action.inputs), name).toContain(name);
  const inputs = { ...Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? ''])), ...given };
  const runnerTemp = fs.mkdtempSync(path.join(folder, 'runner-'));
  const githubEnv = path.join(runnerTemp, 'env');
  fs.writeFileSync(githubEnv, '');
  const steps: Record<string, Record<string, string>> = {};
  let log = '';
  for (const [i, step] of action.runs.steps.entries()) {
    if (!holds(step.if, inputs)) continue;
    expect(step.shell).toBe('bash');
    const githubOutput = path.join(runnerTemp, `output-${i}`);
    fs.writeFileSync(githubOutput, '');
    const env = {
      ...process.env,
      ...mirror.env,
      ...runnerEnv,
      ...keyValues(githubEnv),
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_ENV: githubEnv,
      GITHUB_OUTPUT: githubOutput,
      RUNNER_TEMP: runnerTemp,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, filledIn(String(value), inputs)])),
    };
    try {
      const ran = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', filledIn(step.run!, inputs)], { cwd: workspace, env, timeout: 300_000 });
      log += ran.stdout + ran.stderr;
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { env: keyValues(githubEnv), outputs: {}, log: log + (e.stdout ?? '') + (e.stderr ?? ''), code: typeof e.code === 'number' ? e.code : 1 };
    }
    if (step.id) steps[step.id] = keyValues(githubOutput);
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, output]) => [name, filledIn(output.value, inputs, steps)]));
  return { env: keyValues(githubEnv), outputs, log, code: 0 };
}

/** What a job's tests do with what they were handed: the demo account's API, and an account of a test's own. */
async function usable(variables: Record<string, string>) {
  expect((await client(variables.QUIPU_BASE_URL!, variables.QUIPU_API_KEY!).get('/v3/banks')).status).toBe(200);
  const created = await fetch(`${variables.QUIPU_BASE_URL}/sandbox/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${variables.QUIPU_OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(created.status).toBe(200);
  const account = (await created.json()) as { api_key: string };
  expect((await client(variables.QUIPU_BASE_URL!, account.api_key).post('/v3/payments', { amount: 1000, currency: 'CLP', subject: 'CI' })).status).toBe(200);
}

describe('the GitHub Actions action', () => {
  it('installs the package, starts Quipu and hands the job its address, credentials and operator token, masked', async () => {
    const workspace = path.join(folder, 'github');
    emptyProject(workspace);
    const port = await freePort();
    const ran = await runAction(workspace, { package: tarball, port: String(port) });
    expect(ran.code, ran.log).toBe(0);
    stops.push(ran.env.QUIPU_STOP!);
    expect(fs.existsSync(path.join(workspace, 'node_modules', 'quipu', 'bin', 'quipu.js'))).toBe(true);
    expect(ran.env).toMatchObject({ QUIPU_BASE_URL: `http://127.0.0.1:${port}` });
    expect(ran.env.QUIPU_API_KEY).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(ran.env.QUIPU_SECRET).toMatch(/^[0-9a-f]{40}$/);
    expect(ran.env.QUIPU_RECEIVER_ID).toMatch(/^[1-9]\d{5}$/);
    expect(ran.outputs).toEqual({
      'base-url': ran.env.QUIPU_BASE_URL,
      'api-key': ran.env.QUIPU_API_KEY,
      'receiver-id': ran.env.QUIPU_RECEIVER_ID,
      secret: ran.env.QUIPU_SECRET,
      'operator-token': ran.env.QUIPU_OPERATOR_TOKEN,
    });
    for (const secret of ['QUIPU_API_KEY', 'QUIPU_SECRET', 'QUIPU_OPERATOR_TOKEN']) expect(ran.log).toContain(`::add-mask::${ran.env[secret]}`);
    await usable(ran.env);

    await run('bash', ['-c', ran.env.QUIPU_STOP!]);
    await expect
      .poll(
        () =>
          fetch(`${ran.env.QUIPU_BASE_URL}/readyz`).then(
            () => 'answering',
            () => 'stopped',
          ),
        { timeout: 30_000 },
      )
      .toBe('stopped');
  });

  it('starts the image by a container engine, its secrets given by name only and its port on 127.0.0.1', async () => {
    const workspace = path.join(folder, 'github-image');
    emptyProject(workspace);
    await installPackage(workspace, tarball, mirror);
    const port = await freePort();
    const runnerEnv = { FAKE_ENGINE_DIR: engineDir, FAKE_ENGINE_QUIPU_BIN: path.join(workspace, 'node_modules', 'quipu', 'bin', 'quipu.js') };
    const engine = `${process.execPath} ${path.join(ROOT, 'test', 'helpers', 'fake-container-engine.mjs')}`;
    const ran = await runAction(workspace, { from: 'image', image: 'registry.example/quipu:1', engine, port: String(port) }, runnerEnv);
    expect(ran.code, ran.log).toBe(0);
    stops.push(ran.env.QUIPU_STOP!);
    expect(ran.env.QUIPU_STOP).toBe(`${engine} stop quipu-ci-${port}`);
    const started = JSON.parse(fs.readFileSync(path.join(engineDir, `quipu-ci-${port}.json`), 'utf8')) as { args: string[]; image: string };
    expect(started.image).toBe('registry.example/quipu:1');
    for (const secret of ['QUIPU_API_KEY', 'QUIPU_SECRET', 'QUIPU_OPERATOR_TOKEN']) expect(started.args.join(' ')).not.toContain(ran.env[secret]);
    await usable(ran.env);
  });

  it('says what is missing when there is neither an installed package nor one to install, and starts nothing', async () => {
    const workspace = path.join(folder, 'github-without-package');
    emptyProject(workspace);
    const ran = await runAction(workspace, { port: String(await freePort()) });
    expect(ran.code).not.toBe(0);
    expect(ran.log).toContain("::error::no node_modules/quipu here: give the action's package input");
    expect(ran.env).toEqual({});
  });
});

describe('the GitLab CI example', () => {
  it("runs its package job's before_script: Quipu started and its variables exported to the job's shell", async () => {
    const jobs = YAML.parse(fs.readFileSync(path.join(ROOT, 'docs', 'ci', 'gitlab-ci.yml'), 'utf8')) as Record<string, { before_script: string[] }>;
    const workspace = path.join(folder, 'gitlab');
    emptyProject(workspace);
    fs.copyFileSync(tarball, path.join(workspace, path.basename(tarball)));
    // A warm cache, as the job's `cache:` keeps it between pipelines.
    fs.symlinkSync((await run('npm', ['config', 'get', 'cache'])).stdout.trim(), path.join(workspace, '.npm'));
    const port = await freePort();
    const script = [...jobs['test-with-package']!.before_script, 'env | grep ^QUIPU_'].join('\n');
    const ran = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: workspace,
      env: { ...process.env, ...mirror.env, QUIPU_PORT: String(port) },
      timeout: 300_000,
    });
    const variables = assignments(ran.stdout.split('\n').filter((line) => line.startsWith('QUIPU_')));
    stops.push(variables.QUIPU_STOP!);
    expect(variables.QUIPU_BASE_URL).toBe(`http://127.0.0.1:${port}`);
    await usable(variables);
  });
});
