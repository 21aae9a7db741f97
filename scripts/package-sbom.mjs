#!/usr/bin/env node
// The CycloneDX SBOM of what Quipu's npm package installs for production (its image's npm
// components): `node scripts/package-sbom.mjs quipu-<version>.tgz > quipu-<version>.cdx.json`.
//
// Read from the lockfile the package carries (npm-shrinkwrap.json), as the image's `npm ci
// --omit=dev` reads it. Not `npm sbom --omit dev`: npm 10 and 11 leave out production packages that
// a development one also depends on (jose, nodemailer and pg's own dependencies here); so every
// locked package is listed, and those npm marks as development are dropped, with their edges.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [tarball] = process.argv.slice(2);
if (!tarball) {
  console.error('usage: node scripts/package-sbom.mjs <quipu-<version>.tgz>');
  process.exit(2);
}
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-sbom-'));
// npm names the SBOM's application after its folder.
const unpacked = path.join(folder, 'quipu');
try {
  fs.mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', path.resolve(tarball), '-C', unpacked, '--strip-components=1']);
  const args = ['sbom', '--package-lock-only', '--sbom-format', 'cyclonedx', '--sbom-type', 'application'];
  const bom = JSON.parse(execFileSync('npm', args, { cwd: unpacked, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  const development = (component) => (component.properties ?? []).some((p) => p.name === 'cdx:npm:package:development' && p.value === 'true');
  bom.components = bom.components.filter((component) => !development(component));
  const kept = new Set([bom.metadata.component['bom-ref'], ...bom.components.map((component) => component['bom-ref'])]);
  bom.dependencies = bom.dependencies
    .filter((edge) => kept.has(edge.ref))
    .map((edge) => ({ ...edge, dependsOn: (edge.dependsOn ?? []).filter((ref) => kept.has(ref)) }));
  process.stdout.write(`${JSON.stringify(bom, null, 2)}\n`);
} finally {
  fs.rmSync(folder, { recursive: true, force: true });
}
