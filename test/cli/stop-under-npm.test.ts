// `npm start &`, then `kill <pid>`: the pid is npm's, which passes SIGTERM only to the shell it runs
// the script in, and that shell (dash on Debian) ends without passing it on. The server must stop
// all the same, started by `npm start` or by `npx quipu serve`, and free its port.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort, logLines, startProcess, waitForHttp } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** From SIGTERM to a free port and no process left: the server checks on its parent four times a second. */
const STOPPED_WITHIN_MS = 15_000;

/** The process's state letter from /proc, undefined when it is gone. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

/** `pid` and every process below it: npm, its shell and the server. */
function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended while the folder was read
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

const alive = (pid: number) => ![undefined, 'Z', 'X'].includes(stateOf(pid));

function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe.each([
  ['npm start', 'npm', ['start']],
  ['npx quipu serve', 'npx', ['quipu', 'serve']],
])('%s, then SIGTERM to the pid it gave', { timeout: 180_000 }, (_name, program, args) => {
  it('stops the server and frees its port', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quipu-npm-'));
    const port = await freePort();
    const started = startProcess(program, args, { PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' }, ROOT);
    let tree: number[] = [];
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, 120_000);
      tree = processTree(started.child.pid!);
      expect(tree.length).toBeGreaterThan(1);
      process.kill(started.child.pid!, 'SIGTERM');
      await expect.poll(() => portTaken(port), { timeout: STOPPED_WITHIN_MS, interval: 100 }).toBe(false);
      await expect.poll(() => tree.filter(alive), { timeout: STOPPED_WITHIN_MS, interval: 100 }).toEqual([]);
      // Stopped as on a signal: gracefully, its database closed.
      expect(logLines(started).some((line) => line.msg === 'shutting down')).toBe(true);
    } finally {
      for (const pid of tree.filter(alive)) process.kill(pid, 'SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
