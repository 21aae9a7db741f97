// Runs the real `quipu` command line and server as child processes: bin/quipu.js, which runs the
// compiled dist/ that every test run builds first from the sources (build-dist.ts). Tests import
// this through process.ts; the bench, which runs outside vitest, where vitest's module cannot be
// loaded, imports it directly.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const BIN = new URL('../../bin/quipu.js', import.meta.url).pathname;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Password hashes at 2^12 rather than 2^17 (PASSWORD_HASH_COST, refused with SANDBOX=false): a
 * test suite signs in hundreds of times. Given before a test's own settings, which may override it.
 */
export const testHashCost = (env: Record<string, string>): Record<string, string> => (env.SANDBOX === 'false' ? {} : { PASSWORD_HASH_COST: '12' });

/** `cwd`: the folder the command runs in (the test runner's by default); `bin`: another installation's. */
export async function quipu(args: string[], env: Record<string, string>, cwd?: string, bin = BIN): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env: { ...process.env, ...testHashCost(env), ...env }, timeout: 60_000, cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once `url` answers 200 (a server process is ready), asked every `everyMs`, failing after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs = 30_000, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `quipu serve`, or another long-running command (`['worker']`). `entry`: node's arguments before
 * the command's, the compiled `quipu` unless given (the bench also runs the sources through tsx).
 */
export function startServerProcess(env: Record<string, string>, args: string[] = ['serve'], entry: string[] = [BIN]): ServerProcess {
  return startProcess(process.execPath, [...entry, ...args], env);
}

/** Any long-running program that starts a server (`npm start`), in the folder `cwd`, with the same settings as startServerProcess. */
export function startProcess(program: string, args: string[], env: Record<string, string>, cwd?: string): ServerProcess {
  const child = spawn(program, args, { env: { ...process.env, ...testHashCost(env), ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return {
    child,
    output: () => out,
    waitFor: (text, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const found = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
        if (found()) return resolve(out);
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${text}; output:\n${out}`)), timeoutMs);
        const check = () => {
          if (!found()) return;
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.stderr!.off('data', check);
          resolve(out);
        };
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`server exited with ${code}; output:\n${out}`));
        });
      }),
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** `quipu serve` on a free port, once it answers; it joins `started`, for the test to stop at the end. */
export async function serveOnFreePort(env: Record<string, string>, started: ServerProcess[]): Promise<ServerProcess & { baseUrl: string }> {
  const port = await freePort();
  const server = startServerProcess({ ...env, PORT: String(port) });
  started.push(server);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/healthz`);
  return Object.assign(server, { baseUrl });
}

/** The JSON lines a server process has logged so far: the banner and other plain text left out. */
export function logLines(server: ServerProcess): Record<string, unknown>[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
