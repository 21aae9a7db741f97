// `npm run check:components` (docs/operations.md, "Third-party components"; ASVS 15.2.1) with the
// real npm audit against a local advisory service: npm posts the production tree's packages and
// versions to /-/npm/v1/security/advisories/bulk, and this server answers with an advisory for the
// installed fastify, or none, or 405 as this machine's registry does. npm then asks for the vulnerable
// package's packument (to work out the vulnerable versions and whether a fix exists): the server
// answers it from the installed manifest, so nothing leaves this machine.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIME_FRAMES } from '../../scripts/remediation-time-frames.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const lock = JSON.parse(fs.readFileSync(`${ROOT}npm-shrinkwrap.json`, 'utf8')) as { packages: Record<string, { version: string }> };
const FASTIFY = lock.packages['node_modules/fastify']!.version;
const ADVISORY = {
  id: 1999001,
  url: 'https://github.com/advisories/GHSA-qpqp-test-0001',
  title: 'Test advisory: crafted header crashes the server',
  severity: 'high',
  vulnerable_versions: `<=${FASTIFY}`,
  cwe: ['CWE-400'],
  cvss: { score: 7.5, vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' },
};

let answer: 'none' | 'fastify' | 'refuse' = 'none';
const posted: Record<string, string[]>[] = [];
let registry: string;
let server: http.Server;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-components-'));
  server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (request.method === 'POST' && request.url === '/-/npm/v1/security/advisories/bulk') {
      posted.push(JSON.parse((request.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(body) : body).toString()));
      if (answer === 'refuse') return response.writeHead(405, { allow: 'GET,HEAD' }).end();
      const versions = posted.at(-1)!.fastify ?? [];
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify(answer === 'fastify' && versions.includes(FASTIFY) ? { fastify: [ADVISORY] } : {}));
    }
    const manifest = `${ROOT}node_modules/${decodeURIComponent(request.url!.slice(1))}/package.json`;
    if (request.method !== 'GET' || !fs.existsSync(manifest)) return response.writeHead(404).end();
    const { name, version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name: string; version: string };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ name, 'dist-tags': { latest: version }, versions: { [version]: JSON.parse(fs.readFileSync(manifest, 'utf8')) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The command as a pipeline runs it, against the local service; npm's cache is the test's own. */
const check = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      'npm',
      ['run', '--silent', 'check:components', '--', '--registry', registry, ...args],
      { cwd: ROOT, timeout: 60_000, env: { ...process.env, npm_config_cache: path.join(dir, 'npm-cache') } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );

let records = 0;
const record = (entries: unknown) => {
  const file = path.join(dir, `advisories-${++records}.json`);
  fs.writeFileSync(file, typeof entries === 'string' ? entries : JSON.stringify(entries));
  return file;
};
const triaged = (fields: Record<string, unknown>) => ({
  id: ADVISORY.id,
  package: 'fastify',
  severity: 'high',
  published: '2026-11-20',
  plan: 'upgrade fastify',
  ...fields,
});

describe('npm run check:components', () => {
  it('passes when no advisory affects the production components, which are what npm asks about', async () => {
    answer = 'none';
    const { code, stdout } = await check();
    expect(stdout).toContain('components checked: npm audit reports no advisory for the production components');
    expect(code).toBe(0);
    expect(posted.at(-1)!.fastify).toEqual([FASTIFY]);
    expect(posted.at(-1)!.vitest).toBeUndefined();
  });

  it('fails on an advisory the record does not know, naming it', async () => {
    answer = 'fastify';
    const file = record([]);
    const { code, stdout } = await check('--record', file);
    expect(stdout).toContain(
      `new advisory ${ADVISORY.id} high in fastify: ${ADVISORY.title} ${ADVISORY.url}; record it in ${file} with the day it was published and the plan`,
    );
    expect(code).toBe(1);
  });

  it('passes a recorded advisory up to its due day, and names a recorded one no longer reported as gone', async () => {
    answer = 'fastify';
    const file = record([triaged({}), triaged({ id: 1999002, package: 'pino', severity: 'low', published: '2026-10-01' })]);
    const { code, stdout } = await check('--record', file, '--today', '2026-12-04');
    expect(stdout).toContain(
      `advisory ${ADVISORY.id} high in fastify: ${ADVISORY.title}; published 2026-11-20, due 2026-12-04 (14 days for high): within its time frame; plan: upgrade fastify`,
    );
    expect(stdout).toContain(`advisory 1999002 in pino is gone: npm audit no longer reports it; remove it from ${file}`);
    expect(code).toBe(0);
  });

  it('fails an advisory past its due day, counted from the severity npm reports now', async () => {
    answer = 'fastify';
    // Recorded as moderate (60 days: due 2026-12-31), reported high (14 days).
    const { code, stdout } = await check('--record', record([triaged({ severity: 'moderate', published: '2026-11-01' })]), '--today', '2026-11-27');
    expect(stdout).toContain(
      `advisory ${ADVISORY.id} high in fastify: ${ADVISORY.title}; published 2026-11-01, due 2026-11-15 (14 days for high): breached; plan: upgrade fastify; recorded as moderate: update the record`,
    );
    expect(code).toBe(1);
  });

  it('exits 3 when the advisory service refuses, and 0 after the same line with --unchecked=warn', async () => {
    answer = 'refuse';
    const refused = `components not checked: 405 Method Not Allowed - POST ${registry}-/npm/v1/security/advisories/bulk`;
    const strict = await check();
    expect(strict.stdout).toContain(refused);
    expect(strict.code).toBe(3);
    const warned = await check('--unchecked=warn');
    expect(warned.stdout).toContain(refused);
    expect(warned.code).toBe(0);
  });

  it('refuses a malformed record with exit 2, naming the problem, before asking for advisories', async () => {
    answer = 'fastify';
    const asked = posted.length;
    const notJson = await check('--record', record('[{"id": 1999001,'));
    expect(notJson.stderr).toMatch(/^check:components: .*advisories-\d+\.json: .*JSON/);
    expect(notJson.code).toBe(2);
    const undated = await check('--record', record([triaged({ published: '20 Nov 2026' })]));
    expect(undated.stderr).toContain('entry 1: "published" must be the day the advisory was published, YYYY-MM-DD');
    expect(undated.code).toBe(2);
    expect(posted.length).toBe(asked);
  });
});

describe('the remediation time frames', () => {
  it('are the ones docs/operations.md documents', () => {
    const doc = fs.readFileSync(`${ROOT}docs/operations.md`, 'utf8');
    const section = doc.slice(doc.indexOf('## Third-party components'), doc.indexOf('\n## ', doc.indexOf('## Third-party components')));
    const documented = Object.fromEntries(
      [...section.matchAll(/^\| (\w+) \([^|]*\| [^|]*?(\d+) days \|$/gm)].map(([, severity, days]) => [severity, Number(days)]),
    );
    expect(documented).toEqual(Object.fromEntries(TIME_FRAMES.map((frame) => [frame.documented, frame.days])));
  });
});
