// The npm package's offline proof (test/cli/offline.test.ts starts this inside a network namespace
// that has only a loopback interface, `unshare --net`): the installed package's `quipu serve` under
// `strace -e trace=connect` (every connection it tries, answered or not, is in its trace), a
// notification receiver beside it, and a merchant's day over HTTP (merchant-day.ts). Prints what
// it saw as one JSON line.
//
// node --import tsx offline-example.ts <installed bin/quipu.js> <folder> <strace output file>
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { merchantDay } from './merchant-day.js';
import { startReceiver } from './notification-receiver.js';
import { freePort, startProcess, waitForHttp } from './quipu-processes.js';

const run = promisify(execFile);
const [bin, folder, trace] = process.argv.slice(2) as [string, string, string];
const account = { apiKey: '51f210fe-2fa4-4205-b21b-f1d72d92ebb1', secret: '5e0c4a1f2b3d4e5f60718293a4b5c6d7e8f90a1b' };
const OPERATOR_TOKEN = 'operator-token-of-the-offline-example-0123456789';

const receiver = await startReceiver();
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const env = {
  DATA_DIR: path.join(folder, 'data'),
  PORT: String(port),
  OPERATOR_TOKEN,
  DEMO_API_KEY: account.apiKey,
  DEMO_SECRET: account.secret,
  LOG_LEVEL: 'warn',
};
const server = startProcess('strace', ['-f', '-qq', '-e', 'trace=connect', '-o', trace, process.execPath, bin, 'serve'], env, folder);

try {
  await waitForHttp(`${url}/readyz`, 60_000);
  const day = await merchantDay(url, account, receiver, (id) =>
    run(process.execPath, [bin, 'payments', 'pay', id], { cwd: folder, env: { ...process.env, ...env } }),
  );
  console.log(JSON.stringify(day));
} finally {
  // strace, stopped, would leave the server running detached: the server is stopped, and strace ends with it.
  const pid = server.child.pid!;
  for (const traced of fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)) process.kill(Number(traced), 'SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
  await receiver.close();
}
