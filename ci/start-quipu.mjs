#!/usr/bin/env node
// Starts Quipu for a CI job, in developer mode on a fresh database, waits until it is ready, and
// hands the job what its tests need: QUIPU_BASE_URL, the demo account's credentials
// (QUIPU_API_KEY, QUIPU_RECEIVER_ID, QUIPU_SECRET) and QUIPU_OPERATOR_TOKEN, which makes an account
// per test (POST /sandbox/accounts, docs/testing-in-ci.md). The credentials are chosen here and
// given to Quipu (DEMO_*, OPERATOR_TOKEN), so nothing is read back from its output.
//
// Where from (QUIPU_FROM):
// - `package` (the default): the `quipu` command of the npm package installed in the job's folder
//   (node_modules/quipu, `npm install ./quipu-<version>.tgz`), or QUIPU_BIN; the server runs in the
//   background, its log in QUIPU_STATE_DIR/quipu.log, its data in QUIPU_STATE_DIR/data.
// - `image`: QUIPU_IMAGE (default `quipu`) run by QUIPU_ENGINE (default `docker`; podman takes the
//   same arguments), published on 127.0.0.1 only; the secrets go by name (`-e NAME`), so no process
//   list shows them.
//
// Where to: in GitHub Actions, appended to $GITHUB_ENV (every later step's environment) and
// $GITHUB_OUTPUT (the action's outputs), the secrets masked in the log; elsewhere, printed as
// `export` lines for `eval "$(node start-quipu.mjs)"` (GitLab CI and any shell).
//
// Also QUIPU_PORT (3000), QUIPU_READY_TIMEOUT (seconds, 60), QUIPU_DATABASE_URL (an empty
// PostgreSQL database; unset: SQLite in the state folder), and QUIPU_API_KEY, QUIPU_SECRET,
// QUIPU_RECEIVER_ID, QUIPU_OPERATOR_TOKEN when set (otherwise made at random). The credentials act
// only on a new database (DEMO_*, docs/configuration.md). Quipu gets none of the job's own
// environment (its DATABASE_URL or PORT are the job's application's), but for PATH, HOME and TMPDIR:
// any other setting goes as QUIPU_ENV_<NAME> (QUIPU_ENV_LOG_LEVEL=debug gives LOG_LEVEL=debug).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const env = process.env;
const from = env.QUIPU_FROM || 'package';
if (from !== 'package' && from !== 'image') fail(`QUIPU_FROM must be package or image, got "${from}"`);
const port = Number(env.QUIPU_PORT || 3000);
if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`QUIPU_PORT must be a port number, got "${env.QUIPU_PORT}"`);
const readyWithinMs = Number(env.QUIPU_READY_TIMEOUT || 60) * 1000;
const state = path.resolve(env.QUIPU_STATE_DIR || path.join(env.RUNNER_TEMP || os.tmpdir(), `quipu-${port}`));

const credentials = {
  QUIPU_API_KEY: env.QUIPU_API_KEY || randomUUID(),
  QUIPU_SECRET: env.QUIPU_SECRET || randomBytes(20).toString('hex'),
  QUIPU_RECEIVER_ID: env.QUIPU_RECEIVER_ID || String(randomInt(100_000, 1_000_000)),
  QUIPU_OPERATOR_TOKEN: env.QUIPU_OPERATOR_TOKEN || randomBytes(32).toString('hex'),
};
const PREFIX = 'QUIPU_ENV_';
const settings = {
  ...Object.fromEntries(Object.entries(env).flatMap(([name, value]) => (name.startsWith(PREFIX) ? [[name.slice(PREFIX.length), value]] : []))),
  ...(env.QUIPU_DATABASE_URL ? { DATABASE_URL: env.QUIPU_DATABASE_URL } : {}),
  SANDBOX: 'true',
  DEMO_API_KEY: credentials.QUIPU_API_KEY,
  DEMO_SECRET: credentials.QUIPU_SECRET,
  DEMO_RECEIVER_ID: credentials.QUIPU_RECEIVER_ID,
  OPERATOR_TOKEN: credentials.QUIPU_OPERATOR_TOKEN,
};
const inherited = Object.fromEntries(['PATH', 'HOME', 'TMPDIR'].flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
const baseUrl = `http://127.0.0.1:${port}`;

function fail(message) {
  console.error(`start-quipu: ${message}`);
  process.exit(1);
}

/** The package's server, in the background, on a new database in the state folder. */
function startPackage() {
  const bin = env.QUIPU_BIN || path.resolve('node_modules', 'quipu', 'bin', 'quipu.js');
  if (!fs.existsSync(bin)) fail(`no quipu command at ${bin}: install the package first (npm install ./quipu-<version>.tgz) or set QUIPU_BIN`);
  const data = path.join(state, 'data');
  if (fs.existsSync(data)) fail(`${data} exists: each start takes a new database, so that its credentials are the demo account's`);
  fs.mkdirSync(data, { recursive: true });
  const log = fs.openSync(path.join(state, 'quipu.log'), 'a');
  const server = spawn(process.execPath, [bin, 'serve'], {
    env: { ...inherited, ...settings, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: data },
    cwd: state,
    detached: true,
    stdio: ['ignore', log, log],
  });
  server.unref();
  return { pid: String(server.pid), stop: `kill ${server.pid}`, log: `see ${path.join(state, 'quipu.log')}` };
}

/** The image's container, published on this machine's loopback only. */
function startImage() {
  const engine = (env.QUIPU_ENGINE || 'docker').split(' ').filter(Boolean);
  const name = `quipu-ci-${port}`;
  const image = env.QUIPU_IMAGE || 'quipu';
  const named = Object.keys(settings).flatMap((key) => ['-e', key]);
  execFileSync(engine[0], [...engine.slice(1), 'run', '-d', '--rm', '--name', name, '-p', `127.0.0.1:${port}:3000`, ...named, image], {
    // The engine's own settings (DOCKER_HOST, ...) from the job; the container only the ones named.
    env: { ...env, ...settings },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { pid: '', stop: `${engine.join(' ')} stop ${name}`, log: `run: ${engine.join(' ')} logs ${name}` };
}

async function untilReady(started) {
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) fail(`Quipu was not ready at ${baseUrl}/readyz within ${readyWithinMs / 1000} s (${started.log})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

fs.mkdirSync(state, { recursive: true });
const started = from === 'package' ? startPackage() : startImage();
await untilReady(started);

const variables = { QUIPU_BASE_URL: baseUrl, ...credentials, QUIPU_STOP: started.stop, ...(started.pid ? { QUIPU_PID: started.pid } : {}) };
const SECRET = ['QUIPU_API_KEY', 'QUIPU_SECRET', 'QUIPU_OPERATOR_TOKEN'];
if (env.GITHUB_ENV) {
  for (const name of SECRET) console.log(`::add-mask::${variables[name]}`);
  const lines = Object.entries(variables).map(([name, value]) => `${name}=${value}\n`);
  fs.appendFileSync(env.GITHUB_ENV, lines.join(''));
  if (env.GITHUB_OUTPUT) {
    const outputs = Object.entries(variables).map(([name, value]) => `${name.slice('QUIPU_'.length).toLowerCase().replaceAll('_', '-')}=${value}\n`);
    fs.appendFileSync(env.GITHUB_OUTPUT, outputs.join(''));
  }
  console.log(`Quipu is ready at ${baseUrl} (${from}); stop it with: ${started.stop}`);
} else {
  const quoted = (value) => `'${value.replaceAll("'", "'\\''")}'`;
  for (const [name, value] of Object.entries(variables)) console.log(`export ${name}=${quoted(value)}`);
}
