// The builds the performance guard (guard.ts) runs: the working tree as it is, built into its own
// dist/ as `npm run build` does; a commit, extracted with `git archive` into a cache outside the
// repository and built there once, later runs reusing it; or a directory holding a build made by
// hand (a commit with a change tried out, never committed).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Outside the repository, where neither git, the formatter, the tests nor the tree's own builds look. */
const CACHE = process.env.BENCH_GUARD_CACHE ?? path.join(os.homedir(), '.cache', 'quipu-bench-guard');

export interface Build {
  /** What runs, as the guard's report names it. */
  name: string;
  /** node's arguments that run its `quipu` (startServerProcess's entry). */
  entry: string[];
}

export const git = (...args: string[]): string => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** Runs a build step with its output on stderr, where it stays apart from the guard's report. */
function step(command: string, args: string[], cwd: string): void {
  execFileSync(command, args, { cwd, stdio: ['ignore', process.stderr, process.stderr] });
}

const builtIn = (dir: string, name: string): Build => ({ name, entry: [path.join(dir, 'bin', 'quipu.js')] });

/** A build's lockfile: npm-shrinkwrap.json since the package carries it, package-lock.json before. */
const lockOf = (dir: string) =>
  fs.readFileSync(path.join(dir, fs.existsSync(path.join(dir, 'npm-shrinkwrap.json')) ? 'npm-shrinkwrap.json' : 'package-lock.json'));

/**
 * A node_modules holding the packages `dir` locks: the working tree's, or a cached commit's own from
 * `npm ci`; none when no folder locks the same.
 */
function installedFor(dir: string): string | undefined {
  const lock = lockOf(dir);
  // Folders still being built (named `<sha>.<pid>`) may hold half an installation.
  const cached = fs.existsSync(CACHE) ? fs.readdirSync(CACHE).filter((name) => !name.includes('.')) : [];
  const owners = [ROOT, ...cached.map((name) => path.join(CACHE, name))].filter((owner) => owner !== dir);
  // A folder (not a link) of its own: a link may lead to packages that change under it.
  const owner = owners.find((o) => fs.lstatSync(path.join(o, 'node_modules'), { throwIfNoEntry: false })?.isDirectory() && lockOf(o).equals(lock));
  return owner && path.join(owner, 'node_modules');
}

/** Whether a cached build's node_modules still holds what it locks (a link to the tree's does not once the tree locks others). */
function installed(dir: string): boolean {
  const modules = path.join(dir, 'node_modules');
  return fs.existsSync(modules) && lockOf(path.dirname(fs.realpathSync(modules))).equals(lockOf(dir));
}

/** The working tree as it is now, other work in progress included. */
function workingTree(): Build {
  step('npm', ['run', '--silent', 'build'], ROOT);
  const changed = git('status', '--porcelain', '--untracked-files=no') !== '';
  return builtIn(ROOT, `the working tree (${git('rev-parse', '--short', 'HEAD')}${changed ? ' and uncommitted changes' : ''})`);
}

/**
 * A commit's files in the cache, with a link to a node_modules that holds the packages it locks (the
 * tree's, or another cached commit's) or else its own from `npm ci`; then its dist/ built, when it
 * has a build. dist/
 * leaves some packages to node_modules, so a build whose link no longer leads to its packages is
 * built again.
 */
function commit(ref: string): Build {
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const name = sha.startsWith(ref) ? sha.slice(0, 10) : `${ref} (${sha.slice(0, 10)})`;
  const dir = path.join(CACHE, sha);
  if (fs.existsSync(dir)) {
    if (installed(dir)) return builtIn(dir, name);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // Built under a name of its own and renamed once built: an interrupted build is never taken for
  // one, and two guards building the same commit at once do not mix their files.
  const building = `${dir}.${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(building, { recursive: true });
  const archive = `${building}.tar`;
  try {
    console.error(`bench:guard: building ${name} in ${dir}`);
    git('archive', '--format=tar', '-o', archive, sha);
    step('tar', ['-xf', archive, '-C', building], building);
    const modules = installedFor(building);
    if (modules) fs.symlinkSync(modules, path.join(building, 'node_modules'));
    else step('npm', ['ci', '--no-audit', '--no-fund'], building);
    // A commit from before the compiled build (fa6bb29 and earlier) runs from its sources through tsx, as it did then.
    if (fs.existsSync(path.join(building, 'scripts', 'build.js'))) step(process.execPath, ['scripts/build.js'], building);
    fs.renameSync(building, dir);
  } catch (error) {
    fs.rmSync(building, { recursive: true, force: true });
    if (!fs.existsSync(dir)) throw error;
  } finally {
    fs.rmSync(archive, { force: true });
  }
  return builtIn(dir, name);
}

/** `side`: a ref, or a directory holding a built Quipu; unset, the working tree. */
export function buildOf(side: string | undefined): Build {
  if (side === undefined) return workingTree();
  if (fs.existsSync(path.join(side, 'bin', 'quipu.js'))) return builtIn(path.resolve(side), path.resolve(side));
  return commit(side);
}
