// Quipu's npm package as someone without the repository gets it: `npm pack`'s tarball, installed
// into a folder of its own with the dependencies from npm (the cache `npm ci` filled first), and
// better-sqlite3's addon from a local mirror of the one this checkout compiled
// (`npm_config_better_sqlite3_binary_host`, as the README tells), so that no test compiles SQLite.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = new URL('../..', import.meta.url).pathname;
const INSTALL_TIMEOUT_MS = 600_000;

/** The tarball of this checkout's dist/ (this run's global setup built it, as `npm pack`'s `prepare` would), in `folder`. */
export async function packQuipu(folder: string): Promise<string> {
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], { cwd: ROOT });
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  return path.join(folder, filename);
}

export interface AddonMirror {
  url: string;
  /** The paths asked for. */
  asked: string[];
  /** `npm install`'s environment that takes the addon from here. */
  env: Record<string, string>;
  close(): void;
}

/** Serves, from `folder`, the addon as better-sqlite3's install script asks for it: `/v<version>/<file>`. */
export async function addonMirror(folder: string): Promise<AddonMirror> {
  const addon = path.join(ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(fs.readFileSync(path.join(addon, 'package.json'), 'utf8')) as { version: string };
  const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tarball = path.join(folder, file);
  await run('tar', ['-czf', tarball, '-C', addon, 'build/Release/better_sqlite3.node']);
  const asked: string[] = [];
  const server = http.createServer((request, response) => {
    asked.push(request.url ?? '');
    if (request.url !== `/v${version}/${file}`) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/gzip' });
    fs.createReadStream(tarball).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, asked, env: { npm_config_better_sqlite3_binary_host: url }, close: () => server.close() };
}

/** A new folder `app` with a package.json and a lock of its own, and nothing installed. */
export function emptyProject(app: string): void {
  fs.mkdirSync(app, { recursive: true });
  fs.writeFileSync(path.join(app, 'package.json'), '{ "name": "shop", "private": true }\n');
  fs.writeFileSync(path.join(app, 'package-lock.json'), '{ "name": "shop", "lockfileVersion": 3, "requires": true, "packages": { "": { "name": "shop" } } }\n');
}

/** `npm install <tarball>` in `app`, as its README tells. */
export async function installPackage(app: string, tarball: string, mirror: AddonMirror): Promise<void> {
  await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: app,
    env: { ...process.env, ...mirror.env },
    timeout: INSTALL_TIMEOUT_MS,
  });
}
