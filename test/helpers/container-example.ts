// The image's offline proof, run by scripts/container-smoke.sh inside the network namespace of a
// container started with `--network none` (`nsenter --net`): Quipu answers on the container's
// loopback, a notification receiver listens beside it, and a merchant's day runs over HTTP
// (merchant-day.ts), its payment paid with the image's own `quipu payments pay`. Prints what it
// saw as one JSON line; the script counts the container's connect(2) calls itself.
//
// node --import tsx container-example.ts <engine command> <container> <api key> <secret>
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { merchantDay } from './merchant-day.js';
import { startReceiver } from './notification-receiver.js';
import { waitForHttp } from './quipu-processes.js';

const run = promisify(execFile);
const [engine, container, apiKey, secret] = process.argv.slice(2) as [string, string, string, string];
const [program, ...options] = engine.split(' ');
const URL = 'http://127.0.0.1:3000';

const receiver = await startReceiver();
try {
  await waitForHttp(`${URL}/readyz`, 60_000);
  const day = await merchantDay(URL, { apiKey, secret }, receiver, (id) =>
    run(program!, [...options, 'exec', container, 'node', '/app/bin/quipu.js', 'payments', 'pay', id]),
  );
  console.log(JSON.stringify(day));
} finally {
  await receiver.close();
}
