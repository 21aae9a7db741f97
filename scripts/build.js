#!/usr/bin/env node
// `npm run build`, run by `npm ci` and before every test run: src/ compiled into dist/.
//
// esbuild bundles the service from its entry (src/cli/main.ts, what bin/quipu.js runs) into a few
// files, split at the commands' dynamic imports (cli/commands.ts, cli/main.ts): a command loads
// the chunks it uses and nothing else. Node loads a module at a cost of its own (resolve, read,
// compile, link): loaded module by module, `quipu clock show` started ~430 of them (262 of kysely,
// 46 of jose) and `quipu serve` over a thousand, which took most of their start-up. esbuild only
// removes the types, as tsx and vitest do, so dist/ runs the code the tests run; the type check is
// `npm run typecheck`. The packages in EXTERNAL stay in node_modules, loaded by Node as they are.
//
// Every output file lies one folder below dist/ (dist/cli/main.js, dist/chunks/*), so a path a
// module takes relative to its own `import.meta.url` (its stylesheet, package.json) is rewritten
// to start from there, and the files it reads are copied into dist/ where src/ holds them.
//
// If the sources cannot be bundled (a file that does not parse: someone's edit in progress), each
// module is compiled on its own instead, as tsx would run it, and the one that does not compile
// is left out: the rest of dist/ still runs the sources as they are now, never an older build.
//
// Several builds and processes running from dist/ may overlap (test runs in one checkout): only
// files whose output changed are written, each through a rename, chunks before the entry that
// names them. A file no build makes any more is removed only once the entry has not changed for
// STALE_MS, and the file itself was not written or used by a build in that time either: a process
// that read an earlier entry has loaded its chunks by then.
import fs from 'node:fs';
import path from 'node:path';
import { build, transform } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');
const ENTRY = 'cli/main';
const entryFile = path.join(dist, `${ENTRY}.js`);
/** Output files in the order they are written: the entry, which names the others, last. */
const entryLast = (outputs) => outputs.sort((a, b) => (a.file === entryFile) - (b.file === entryFile));
const STALE_MS = 60_000;

/**
 * Left to Node, from node_modules: a native addon (better-sqlite3), packages that read files of
 * their own at run time (the Swagger plugins: its page's assets, a package.json; pino's transports
 * would too, but Quipu uses none), those loaded only when needed, by `require` (pg, on PostgreSQL;
 * the common passwords, when a password is checked), and @fastify/cookie, which imports a
 * CommonJS module dynamically (see `dynamicImportsOfCommonJs`).
 */
const EXTERNAL = ['better-sqlite3', 'pg', '@fastify/swagger', '@fastify/swagger-ui', '@zxcvbn-ts/language-common', '@fastify/cookie'];

/**
 * A bundled CommonJS module imported with `import()` has only a default export, where Node gives it
 * named ones too: `(await import('cookie')).parseCookie` works from node_modules and is undefined in
 * the bundle. Quipu's own modules take the default (delivery/sender.ts); a package doing this must
 * stay in EXTERNAL, and the build says which.
 */
function dynamicImportsOfCommonJs({ inputs }) {
  return Object.entries(inputs).flatMap(([importer, { imports }]) =>
    importer.includes('node_modules/')
      ? imports.filter((i) => i.kind === 'dynamic-import' && inputs[i.path]?.format === 'cjs').map((i) => `${importer} imports ${i.path}`)
      : [],
  );
}

const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
const sources = fs
  .readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && !entry.name.endsWith('.d.ts'))
  .map((entry) => path.relative(src, path.join(entry.parentPath, entry.name)));
/** Files read at run time beside their module (the stylesheets): copied into dist/ as they are. */
const assets = sources.filter((file) => !file.endsWith('.ts'));

const RELATIVE_URL = /new URL\((['"])(\.\.?\/[^'"]+)\1, import\.meta\.url\)/g;

/** `new URL('./payer.css', import.meta.url)` in src/http/payer/routes.ts, as a file one folder below dist/ must say it. */
const fromDistFolder = (file, code) =>
  code.replace(RELATIVE_URL, (_match, quote, relative) => {
    const target = path
      .relative(src, path.resolve(path.dirname(file), relative))
      .split(path.sep)
      .join('/');
    return `new URL(${quote}../${target}${quote}, import.meta.url)`;
  });

const distPaths = {
  name: 'dist-paths',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(src + path.sep)) return undefined;
      return { contents: fromDistFolder(args.path, await fs.promises.readFile(args.path, 'utf8')), loader: 'ts' };
    });
  },
};

/** The bundle's files, chunks first and the entry last; undefined with the errors said if esbuild cannot bundle the sources. */
async function bundle() {
  try {
    const { outputFiles, metafile } = await build({
      absWorkingDir: root,
      entryPoints: { [ENTRY]: path.join(src, `${ENTRY}.ts`) },
      outdir: dist,
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: EXTERNAL,
      // Not keepNames: it wraps every function made at run time in a call that defines its name,
      // and Fastify's hook runners make several a request (a tenth of a production GET's CPU went
      // there; docs/benchmarks.md). A clash renames a module's top-level name (`up2`), which
      // nothing reads, except an error class's, which pino logs as the error's type: renamedErrors.
      keepNames: false,
      // CommonJS packages bundled into these ES modules still require Node's own modules.
      banner: { js: "import { createRequire as __quipuRequire } from 'node:module'; const require = __quipuRequire(import.meta.url);" },
      tsconfigRaw: { compilerOptions },
      plugins: [distPaths],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    for (const found of dynamicImportsOfCommonJs(metafile))
      throw new Error(`build: ${found} dynamically, which has no named exports once bundled: add its package to EXTERNAL`);
    for (const renamed of renamedErrors(outputFiles))
      throw new Error(`build: the bundle renamed the error class ${renamed}, whose name pino logs as its type: give it a name of its own`);
    for (const { path: file } of outputFiles) {
      if (path.dirname(path.dirname(file)) !== dist)
        throw new Error(`build: ${file} is not one folder below dist/, where the rewritten import.meta.url paths start`);
    }
    return entryLast(outputFiles.map(({ path: file, contents }) => ({ file, contents: Buffer.from(contents) })));
  } catch (error) {
    const where = (location) => (location ? `${location.file}:${location.line}:${location.column}: ` : '');
    for (const message of error.errors ?? [{ text: error.message }]) console.error(`${where(message.location)}${message.text}`);
    return undefined;
  }
}

/** Error classes the bundle renamed to keep two modules' names apart (`class DomainError2`). */
function renamedErrors(outputFiles) {
  return outputFiles.flatMap(({ text }) => [...text.matchAll(/\bclass (\w*Error\d+)\b/g)].map((match) => match[1]));
}

/** Every module on its own, as src/ holds them; a module that does not compile is said and left out. */
async function moduleByModule() {
  const outputs = [];
  let failed = 0;
  await Promise.all(
    sources
      .filter((file) => file.endsWith('.ts'))
      .map(async (file) => {
        try {
          const { code } = await transform(fs.readFileSync(path.join(src, file), 'utf8'), {
            loader: 'ts',
            format: 'esm',
            target: 'node20',
            sourcefile: path.join('src', file),
            tsconfigRaw: { compilerOptions },
          });
          outputs.push({ file: path.join(dist, file.replace(/\.ts$/, '.js')), contents: Buffer.from(code) });
        } catch (error) {
          failed++;
          console.error(error instanceof Error ? error.message : error);
        }
      }),
  );
  if (failed) {
    console.error(`build: ${failed} files in src/ did not compile; their modules are missing from dist/`);
    process.exitCode = 1;
  }
  return entryLast(outputs);
}

/** Writes `file` unless it already holds `contents`, which it then marks as used by this build. */
function writeIfChanged(file, contents) {
  if (fs.existsSync(file) && fs.readFileSync(file).equals(contents)) {
    if (file !== entryFile) fs.utimesSync(file, new Date(), new Date());
    return;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

let outputs = await bundle();
if (!outputs) {
  console.error('build: the sources could not be bundled; dist/ holds each module compiled on its own');
  outputs = await moduleByModule();
}
const age = (file) => Date.now() - fs.statSync(file).mtimeMs;
// The entry is only written when it changes, so its age is the time since a build last changed it.
const newEntry = outputs.find(({ file }) => file === entryFile);
const entrySettled = newEntry !== undefined && fs.existsSync(entryFile) && age(entryFile) > STALE_MS && fs.readFileSync(entryFile).equals(newEntry.contents);
const assetOutputs = assets.map((file) => ({ file: path.join(dist, file), contents: fs.readFileSync(path.join(src, file)) }));
for (const { file, contents } of [...assetOutputs, ...outputs]) writeIfChanged(file, contents);

if (entrySettled) {
  const built = new Set([...assetOutputs, ...outputs].map(({ file }) => file));
  for (const found of fs.readdirSync(dist, { recursive: true, withFileTypes: true })) {
    const file = path.join(found.parentPath, found.name);
    // Another build's file on its way in is left alone.
    if (found.isFile() && !built.has(file) && !file.endsWith('.tmp') && age(file) > STALE_MS) fs.rmSync(file, { force: true });
  }
}
