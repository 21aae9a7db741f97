#!/usr/bin/env node
// `npm run build`, run by `npm ci` and before every test run: src/ compiled into dist/, one
// JavaScript module per TypeScript module, beside a copy of every other file the service reads at
// run time (its stylesheets), so paths relative to import.meta.url hold in both trees. esbuild only
// removes the types, as tsx and vitest do, so dist/ runs the code the tests run; the type check is
// `npm run typecheck`. A full build takes about a second, so nothing is cached between builds.
//
// Several builds and processes running from dist/ may overlap (test runs in one checkout): only
// files whose output changed are written, each through a rename, so no process reads half a file.
// A module that does not compile loses its output, and so does one whose source is gone: dist/
// never runs older code than src/ holds.
import fs from 'node:fs';
import path from 'node:path';
import { transform } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));

/** The output of the source `file` (relative to src/), or undefined if it does not compile. */
async function compile(file) {
  const source = fs.readFileSync(path.join(src, file));
  if (!file.endsWith('.ts')) return { out: file, contents: source };
  const { code } = await transform(source.toString('utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: path.join('src', file),
    tsconfigRaw: { compilerOptions },
  });
  return { out: file.replace(/\.ts$/, '.js'), contents: Buffer.from(code) };
}

function writeIfChanged(file, contents) {
  if (fs.existsSync(file) && fs.readFileSync(file).equals(contents)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

const sources = fs.readdirSync(src, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && !entry.name.endsWith('.d.ts'));
const built = new Set();
let failed = 0;
await Promise.all(
  sources.map(async (entry) => {
    const file = path.relative(src, path.join(entry.parentPath, entry.name));
    try {
      const { out, contents } = await compile(file);
      built.add(path.join(dist, out));
      writeIfChanged(path.join(dist, out), contents);
    } catch (error) {
      failed++;
      console.error(error instanceof Error ? error.message : error);
    }
  }),
);

if (fs.existsSync(dist)) {
  for (const entry of fs.readdirSync(dist, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    // Another build's file on its way in is left alone.
    if (entry.isFile() && !built.has(file) && !file.endsWith('.tmp')) fs.rmSync(file, { force: true });
  }
}
if (failed) {
  console.error(`build: ${failed} of ${sources.length} files in src/ did not compile; their modules are missing from dist/`);
  process.exitCode = 1;
}
