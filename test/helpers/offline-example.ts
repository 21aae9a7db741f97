// A full example of a merchant's day with Quipu, run inside a network namespace that has only a
// loopback interface (test/cli/offline.test.ts starts it with `unshare --net`): the installed
// package's `quipu serve` under `strace -e trace=connect` (every connection it tries, answered or
// not, is in its trace), a notification receiver beside it, and over HTTP: a payment created, paid
// at DemoBank (`quipu payments pay`), notified and partly refunded; a subscription whose mandate
// DemoBank signs (the mandate-enabled scenario); a charge intent debited and settled on the
// account's clock, and notified. Prints what it saw as one JSON line.
//
// node --import tsx offline-example.ts <installed bin/quipu.js> <folder> <strace output file>
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { moveClockPastSettlement } from '../../bench/charge-pipeline.js';
import { chargeBodies } from '../../bench/charge-server.js';
import { eventually, startReceiver } from './notification-receiver.js';
import { freePort, startProcess, waitForHttp } from './quipu-processes.js';

const run = promisify(execFile);
const [bin, folder, trace] = process.argv.slice(2) as [string, string, string];
const API_KEY = '51f210fe-2fa4-4205-b21b-f1d72d92ebb1';
const OPERATOR_TOKEN = 'operator-token-of-the-offline-example-0123456789';
const JSON_BODY = { 'content-type': 'application/json' };

const receiver = await startReceiver();
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const env = { DATA_DIR: path.join(folder, 'data'), PORT: String(port), OPERATOR_TOKEN, DEMO_API_KEY: API_KEY, LOG_LEVEL: 'warn' };
const server = startProcess('strace', ['-f', '-qq', '-e', 'trace=connect', '-o', trace, process.execPath, bin, 'serve'], env, folder);
const headers = { ...JSON_BODY, 'x-api-key': API_KEY };
const api = async (method: string, route: string, body?: object) => {
  const answer = await fetch(`${url}${route}`, { method, headers, body: body && JSON.stringify(body) });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`${method} ${route} answered ${answer.status}: ${text}`);
  return JSON.parse(text);
};
const notificationOf = (field: string, id: string) => receiver.requests.find((request) => request.body.includes(`"${field}":"${id}"`));

try {
  await waitForHttp(`${url}/readyz`, 60_000);
  const payment = await api('POST', '/v3/payments', { amount: 2000, currency: 'CLP', subject: 'Offline', notify_url: receiver.url, notify_api_version: '3.0' });
  await run(process.execPath, [bin, 'payments', 'pay', payment.payment_id], { cwd: folder, env: { ...process.env, ...env } });
  await eventually(async () => notificationOf('payment_id', payment.payment_id), Boolean, 60_000);
  const refund = await api('POST', `/v3/payments/${payment.payment_id}/refunds`, { amount: 500 });

  const scenario = await api('POST', '/sandbox/scenarios/mandate-enabled/run');
  const subscriptionId = scenario.subscription.subscription_id as string;
  const { charge } = chargeBodies(subscriptionId, receiver.url);
  const intent = await api('POST', '/v1/automatic-payment/charge-intent', charge);
  // The debit job is due every 5 s of the account's clock: moved that far, it runs for the account at once.
  await api('POST', '/sandbox/clock', { advance: '5s' });
  // Once the job has submitted the debit (it runs in the background), it settles on the next bank
  // business day: the clock is moved past it until the charge is notified.
  await eventually(
    async () => {
      await moveClockPastSettlement(url, headers);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return notificationOf('payment_id', intent.payment_id);
    },
    Boolean,
    60_000,
  );

  const paid = await api('GET', `/v3/payments/${payment.payment_id}`);
  const charged = await api('GET', `/v3/payments/${intent.payment_id}`);
  console.log(
    JSON.stringify({
      payment: paid.status,
      refunded: refund.message !== undefined,
      subscription: scenario.outcome,
      charge: charged.status,
      notifications: receiver.requests.length,
    }),
  );
} finally {
  // strace, stopped, would leave the server running detached: the server is stopped, and strace ends with it.
  const pid = server.child.pid!;
  for (const traced of fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)) process.kill(Number(traced), 'SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
  await receiver.close();
}
