// 64 "tests" at once against one `quipu serve` on SQLite, each with its own sandbox account and its
// own receiver, each doing what a merchant's suite does: create an account, snapshot it, pay at
// DemoBank (the transfer-pays scenario) and receive the notification, move its clock two days, pay
// again with its receiver failing the first delivery so the notification is retried, then restore
// the snapshot. Cross-talk is counted by the receivers (a notification of another account) and by
// the API (another account's payment readable, a clock that is not the account's own).
import { createTestDatabase } from '../test/helpers/database.js';
import { type Receiver, startReceiver } from '../test/helpers/notification-receiver.js';
import { freePort, startServerProcess, waitForHttp } from '../test/helpers/quipu-processes.js';

const TESTS = Number(process.env.BENCH_PARALLEL_TESTS ?? 64);
const DAY = 86_400_000;

async function send(url: string, method: string, path: string, body?: unknown, apiKey?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

interface Outcome {
  ms: number;
  crossTalk: string[];
}

/** One test: its account, its receiver (failing the first delivery of its second payment), its clock. */
async function oneTest(url: string): Promise<Outcome & { apiKey: string; paymentIds: string[]; receiver: Receiver }> {
  const started = performance.now();
  const seen = new Set<string>();
  const receiver = await startReceiver((request) => {
    const id = (JSON.parse(request.body) as { payment_id: string }).payment_id;
    const first = !seen.has(id);
    seen.add(id);
    return { status: first && seen.size === 2 ? 500 : 200 };
  });
  const crossTalk: string[] = [];
  const account = (await send(url, 'POST', '/sandbox/accounts', { name: 'Parallel', notify_url: receiver.url })).body as {
    receiver_id: number;
    api_key: string;
  };
  const api = (method: string, path: string, body?: unknown) => send(url, method, path, body, account.api_key);
  const snapshot = (await send(url, 'POST', `/sandbox/accounts/${account.receiver_id}/snapshots`)).body as { snapshot_id: string };
  const pay = async () => (await api('POST', '/sandbox/scenarios/transfer-pays/run')).body.payment.payment_id as string;
  const notified = (id: string, times: number) => receiver.waitFor((requests) => requests.filter((r) => r.body.includes(id)).length >= times, 60_000);

  const first = await pay();
  await notified(first, 1);
  if ((await api('POST', '/sandbox/clock', { advance: '2d' })).status !== 200) crossTalk.push('clock not moved');
  const second = await pay();
  await notified(second, 1);
  // The retry is due five seconds later on the account's clock: moving it brings the retry now.
  await api('POST', '/sandbox/clock', { advance: '10s' });
  await notified(second, 2);
  const clock = (await api('GET', '/sandbox/clock')).body as { offset_ms: number; own: boolean };
  if (!clock.own || clock.offset_ms < 2 * DAY || clock.offset_ms > 2 * DAY + 60_000) crossTalk.push(`clock ${JSON.stringify(clock)}`);
  if ((await send(url, 'POST', `/sandbox/accounts/${account.receiver_id}/snapshots/${snapshot.snapshot_id}/restore`)).status !== 200)
    crossTalk.push('not restored');
  if ((await api('GET', `/v3/payments/${second}`)).status !== 404) crossTalk.push('a payment made after the snapshot survived its restore');
  for (const request of receiver.requests) {
    const body = JSON.parse(request.body) as { receiver_id: number; payment_id: string };
    if (body.receiver_id !== account.receiver_id) crossTalk.push(`a notification of account ${body.receiver_id}`);
  }
  return { ms: performance.now() - started, crossTalk, apiKey: account.api_key, paymentIds: [first, second], receiver };
}

export async function benchParallelSuites(): Promise<string> {
  const database = await createTestDatabase('sqlite', '', { migrated: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = startServerProcess({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', PORT: String(port) });
  const receivers: Receiver[] = [];
  try {
    await waitForHttp(`${url}/readyz`);
    const started = performance.now();
    const outcomes = await Promise.all(Array.from({ length: TESTS }, () => oneTest(url)));
    const wallMs = performance.now() - started;
    receivers.push(...outcomes.map((o) => o.receiver));
    // Every account's payments are readable by it alone: the next test's first payment is a 404 with this one's key.
    let foreign = 0;
    for (const [i, outcome] of outcomes.entries()) {
      const other = outcomes[(i + 1) % outcomes.length]!;
      if ((await send(url, 'GET', `/v3/payments/${other.paymentIds[0]}`, undefined, outcome.apiKey)).status !== 404) foreign++;
    }
    const crossTalk = outcomes.flatMap((o) => o.crossTalk);
    const delivered = outcomes.reduce((sum, o) => sum + o.receiver.requests.length, 0);
    const times = outcomes.map((o) => o.ms).sort((a, b) => a - b);
    return [
      '## Parallel suites against one Quipu',
      '',
      `One \`quipu serve\` on SQLite, ${TESTS} "tests" started at once (\`bench/parallel-suites.ts\`), each with its own sandbox account and receiver: create the account, snapshot it, pay at DemoBank (scenario transfer-pays) and receive the notification, move its clock +2 d, pay again with its receiver failing the first delivery and move +10 s for the retry, then restore the snapshot. Cross-talk: a notification of another account at a test's receiver, a clock that is not the account's own +2 d, a payment surviving the restore, another account's payment readable.`,
      '',
      '| tests | wall | per test, median | per test, max | notifications received | cross-talk | another account readable |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${TESTS} | ${(wallMs / 1000).toFixed(1)} s | ${(times[Math.floor(times.length / 2)]! / 1000).toFixed(1)} s | ${(times.at(-1)! / 1000).toFixed(1)} s | ${delivered} | ${crossTalk.length} | ${foreign} |`,
      '',
      ...(crossTalk.length > 0 ? [`Cross-talk seen: ${[...new Set(crossTalk)].join('; ')}`, ''] : []),
    ].join('\n');
  } finally {
    for (const receiver of receivers) await receiver.close();
    await server.stop();
    await database.drop();
  }
}
