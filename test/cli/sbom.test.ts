// The software bill of materials (docs/security.md, components): `npm run sbom` writes CycloneDX
// from the installed tree and the lock file, offline, naming every package `npm ci` installs (an
// installation runs from a full `npm ci`) at its locked version, with the registry's integrity hash.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

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
    const lock = JSON.parse(fs.readFileSync(`${ROOT}package-lock.json`, 'utf8')) as {
      packages: Record<string, { version?: string; integrity?: string; link?: boolean }>;
    };
    const installed = Object.entries(lock.packages).filter(
      ([path, entry]) => path.startsWith('node_modules/') && !entry.link && fs.existsSync(`${ROOT}${path}`),
    );
    expect(installed.length).toBeGreaterThan(100);
    for (const [path, entry] of installed) {
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      expect(listed, path).toContain(`${name}@${entry.version} ${hexOf(entry.integrity!)}`);
    }
    const manifest = JSON.parse(fs.readFileSync(`${ROOT}package.json`, 'utf8')) as { dependencies: Record<string, string> };
    for (const name of Object.keys(manifest.dependencies))
      expect(
        bom.components.some((c) => c.name === name && c.purl.startsWith('pkg:npm/')),
        name,
      ).toBe(true);
  });
});
