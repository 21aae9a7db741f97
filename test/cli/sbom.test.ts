// The software bill of materials (docs/security.md, components): `npm run sbom` writes CycloneDX
// from the installed tree and the lock file, offline, naming every package `npm ci` installs (an
// installation runs from a full `npm ci`) at its locked version, with the registry's integrity hash.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packQuipu } from '../helpers/package.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
}

const lockedPackages = () =>
  Object.entries((JSON.parse(fs.readFileSync(`${ROOT}npm-shrinkwrap.json`, 'utf8')) as { packages: Record<string, LockEntry> }).packages).filter(
    ([where, entry]) => where.startsWith('node_modules/') && !entry.link,
  );
const nameAt = (where: string) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);

interface Component {
  name: string;
  version: string;
  purl: string;
  hashes?: { alg: string; content: string }[];
}

const hexOf = (integrity: string) => Buffer.from(integrity.replace(/^sha512-/, ''), 'base64').toString('hex');

describe('npm run sbom', () => {
  it('lists every locked package at its version with its hash', { timeout: 60_000 }, async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'sbom'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const bom = JSON.parse(stdout) as { bomFormat: string; components: Component[] };
    expect(bom.bomFormat).toBe('CycloneDX');
    const listed = new Set(bom.components.map((c) => `${c.name}@${c.version} ${c.hashes?.find((h) => h.alg === 'SHA-512')?.content}`));
    const installed = lockedPackages().filter(([where]) => fs.existsSync(`${ROOT}${where}`));
    expect(installed.length).toBeGreaterThan(100);
    for (const [where, entry] of installed) expect(listed, where).toContain(`${nameAt(where)}@${entry.version} ${hexOf(entry.integrity!)}`);
    const manifest = JSON.parse(fs.readFileSync(`${ROOT}package.json`, 'utf8')) as { dependencies: Record<string, string> };
    for (const name of Object.keys(manifest.dependencies))
      expect(
        bom.components.some((c) => c.name === name && c.purl.startsWith('pkg:npm/')),
        name,
      ).toBe(true);
  });
});

describe('scripts/package-sbom.mjs', () => {
  it("lists the npm package's production packages as its lockfile pins them, and no development one", { timeout: 120_000 }, async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-package-sbom-'));
    try {
      const tarball = await packQuipu(folder);
      const { stdout } = await run(process.execPath, [`${ROOT}scripts/package-sbom.mjs`, tarball], { maxBuffer: 64 * 1024 * 1024 });
      const bom = JSON.parse(stdout) as {
        metadata: { component: { name: string } };
        components: Component[];
        dependencies: { ref: string; dependsOn: string[] }[];
      };
      expect(bom.metadata.component.name).toBe('quipu');
      const listed = new Set(bom.components.map((c) => `${c.name}@${c.version} ${c.hashes?.find((h) => h.alg === 'SHA-512')?.content}`));
      const [production, development] = [false, true].map((dev) =>
        lockedPackages()
          .filter(([, entry]) => Boolean(entry.dev) === dev)
          .map(([where, entry]) => `${nameAt(where)}@${entry.version} ${hexOf(entry.integrity!)}`),
      );
      // npm's own --omit dev leaves these out, a development package depending on them too.
      expect(production).toEqual(expect.arrayContaining([expect.stringMatching(/^jose@/), expect.stringMatching(/^pg-types@/)]));
      expect([...listed].sort()).toEqual([...new Set(production)].sort());
      for (const component of development!.filter((c) => !production!.includes(c))) expect(listed.has(component), component).toBe(false);
      const refs = new Set([...bom.components.map((c) => (c as unknown as { 'bom-ref': string })['bom-ref'])]);
      for (const edge of bom.dependencies) for (const ref of edge.dependsOn) expect(refs.has(ref), `${edge.ref} → ${ref}`).toBe(true);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
