// Quipu works with the network off, and tries no connection to anything but what it is told to:
// the npm package, installed as someone without the repository installs it, runs a full example
// (test/helpers/offline-example.ts and merchant-day.ts: a payment paid at DemoBank, notified and refunded; a mandate
// signed; a charge debited, settled and notified) inside a network namespace whose only interface
// is the loopback (`unshare --net`), its receiver beside it, while strace records every connect(2)
// of the server's process tree. What the README promises (no account, no token, no expiry, no
// telemetry) is what this counts: every connection it tried was to this machine's loopback.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AddonMirror, addonMirror, emptyProject, installPackage, packQuipu, ROOT } from '../helpers/package.js';

const run = promisify(execFile);
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-offline-'));
const app = path.join(folder, 'app');
let mirror: AddonMirror;

beforeAll(async () => {
  const tarball = await packQuipu(folder);
  mirror = await addonMirror(folder);
  emptyProject(app);
  await installPackage(app, tarball, mirror);
}, 600_000);

afterAll(() => {
  mirror?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

/** The address of each connect(2) in strace's lines: an inet or inet6 one as `address:port`, a Unix socket as its path. */
function connections(trace: string): string[] {
  return trace.split('\n').flatMap((line) => {
    if (!/\bconnect\(/.test(line)) return [];
    const inet = /sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/.exec(line);
    if (inet) return [`${inet[2]}:${inet[1]}`];
    const inet6 = /sin6_port=htons\((\d+)\),.*inet_pton\(AF_INET6, "([^"]+)"/.exec(line);
    if (inet6) return [`[${inet6[2]}]:${inet6[1]}`];
    const unix = /sun_path="([^"]*)"/.exec(line);
    return [unix ? `unix:${unix[1]}` : `unknown:${line.trim()}`];
  });
}

describe('with the network off', () => {
  it('a full example passes, and every connection Quipu tried was to the loopback', async () => {
    const trace = path.join(folder, 'connect.trace');
    const example = path.join(ROOT, 'test', 'helpers', 'offline-example.ts');
    const bin = path.join(app, 'node_modules', 'quipu', 'bin', 'quipu.js');
    const script = `ip link set lo up && exec "${process.execPath}" --import tsx "${example}" "${bin}" "${app}" "${trace}"`;
    // --map-root-user: the namespace's own root, which may bring its loopback up, for a test run without privileges too.
    const { stdout } = await run('unshare', ['--net', '--map-root-user', '--', 'bash', '-c', script], { cwd: ROOT, timeout: 240_000 });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      payment: 'done',
      refunded: true,
      subscription: 'ENABLED',
      charge: 'done',
      notifications: expect.any(Number),
      firstNotificationAt: expect.any(Number),
      signed: true,
    });

    const tried = connections(fs.readFileSync(trace, 'utf8'));
    // The receiver and the server itself (its health and its own address): something was traced.
    expect(tried.some((address) => address.startsWith('127.0.0.1:'))).toBe(true);
    expect(tried.filter((address) => !/^(127\.0\.0\.1|\[::1\]|unix):/.test(address))).toEqual([]);
  });

  it("reads strace's connect lines", () => {
    const lines = [
      '123 connect(21, {sa_family=AF_INET, sin_port=htons(40123), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
      '124 connect(22, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2606:4700::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH (Network is unreachable)',
      '125 connect(23, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)',
      '126 connect(24, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.2")}, 16) = -1 ENETUNREACH (Network is unreachable)',
      '127 +++ exited with 0 +++',
    ].join('\n');
    expect(connections(lines)).toEqual(['127.0.0.1:40123', '[2606:4700::1]:443', 'unix:/var/run/nscd/socket', '10.0.0.2:53']);
  });
});
