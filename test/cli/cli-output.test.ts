// What the command line prints, as real processes on the database of a running test server:
// `quipu events resend --wait` waits for the attempt a worker logs and prints its outcome (exit
// status 1 when it failed or none came in time); every list prints a header row over its columns;
// `quipu payments show` prints one payment in full, --json too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDashboardUser } from '../../src/app/add-dashboard-user.js';
import { refundPayment } from '../../src/app/refund-payment.js';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import type { Payment } from '../../src/domain/payment.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { quipu } from '../helpers/process.js';
import { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let hooks: Receiver;
let worker: DeliveryWorker;
let account: TestAccount;
let paid: Payment;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  env = { DATABASE_URL: server.database.url, DATA_DIR: server.database.dataDir, LOG_LEVEL: 'warn' };
  hooks = await startReceiver();
  worker = testWorker(server);
  account = await server.account({ name: 'Printer', features: { refunds: true } });
  await addDashboardUser(server.ctx, account.receiver_id, { password: CHOSEN_PASSWORD, email: 'owner@printer.test' });
  paid = await reconciledPayment(server, account, { notify_url: hooks.url, subject: 'Blue mug' });
  await refundPayment(server.ctx, account.merchant, paid.paymentId, '300');
  await hooks.waitFor((requests) => requests.length === 1);
});
afterAll(async () => {
  await worker?.stop();
  await hooks?.close();
  await server?.close();
});

const eventOf = async (paymentId: string): Promise<string> =>
  (await client(server.baseUrl, account.api_key).get(`/quipu/v1/events?subject_id=${paymentId}`)).body.events[0].id;

// Each command is a process of its own: generous time for a loaded machine.
describe('the command line', { timeout: 180_000 }, () => {
  it('resend --wait prints the attempt the worker logged, and exits 1 when it failed', async () => {
    const id = await eventOf(paid.paymentId);
    const ok = await quipu(['events', 'resend', id, '--wait'], env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(new RegExp(`^${id} queued for delivery at \\S+; waiting for its attempt\\n#2 resend \\S+  delivered 200 \\d+ ms\\n$`));

    hooks.answer(() => ({ status: 500, body: 'nope' }));
    try {
      const failed = await quipu(['events', 'resend', id, '--wait', '--json'], env);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({
        id,
        attempt: { number: 3, trigger: 'resend', outcome: 'failed', status_code: 500, error: 'HTTP 500' },
      });
    } finally {
      hooks.answer(() => ({ status: 200, body: 'ok' }));
    }
  });

  it('resend --wait gives up after --timeout when no worker sends it, with exit status 1', async () => {
    await worker.stop();
    try {
      const id = await eventOf(paid.paymentId);
      const waited = await quipu(['events', 'resend', id, '--wait', '--timeout', '1'], env);
      expect(waited.code).toBe(1);
      expect(waited.stderr).toContain(`quipu: no attempt of ${id} was logged within 1 s: is a quipu serve or quipu worker running?`);
    } finally {
      worker = testWorker(server);
    }
  });

  it('prints a header row over every list', async () => {
    const receiver = String(account.receiver_id);
    const lists: [args: string[], header: RegExp][] = [
      [['payments', 'list', '--receiver', receiver], /^ID +CREATED +STATUS +AMOUNT +SUBJECT$/],
      [['events', 'list'], /^ID +STATUS +ATTEMPTS +RECEIVER +KIND +SUBJECT +DESTINATION$/],
      [['notifications', 'list'], /^ID +STATUS +ATTEMPTS +RECEIVER +PAYMENT +VERSION +URL$/],
      [['emails', 'list'], /^ID +STATUS +CREATED +RECEIVER +PAYMENT +KIND +TO +SUBJECT$/],
      [['subscriptions', 'list'], /^ID +STATUS +STATE +RECEIVER +BANK +NAME$/],
      [['merchants', 'list'], /^RECEIVER_ID +MODE +NAME$/],
      [['keys', 'list'], /^KID +ALG +CREATED +STATE$/],
      [['users', 'list', receiver], /^EMAIL +ROLE +TWO-FACTOR +DISABLED$/],
      [['jobs', 'list'], /^NAME +EVERY +NEXT RUN +STATE +RUNS +LAST STARTED +LAST FINISHED +LAST ERROR$/],
      [['demobank', 'mandates', 'list'], /^SUBSCRIPTION +STATE +RUT +MAX AMOUNT +CREDITOR +REASON$/],
      [['demobank', 'requests'], /^ *# +ASKED AT +OPERATION +ABOUT +ANSWER$/],
      [['credits', 'list'], /^BANK REFERENCE +STATUS +AMOUNT +ACCOUNT +REFERENCE +PAYMENT OR REASON$/],
      [['scenarios', 'list'], /^ID +FLOW +OUTCOME$/],
    ];
    const found: Record<string, string> = {};
    for (const [args, header] of lists) {
      const result = await quipu(args, env);
      const first = result.stdout.split('\n')[0]!;
      if (result.code !== 0 || !header.test(first)) found[args.join(' ')] = `${result.code} ${first} ${result.stderr}`;
    }
    expect(found).toEqual({});
    // The columns line up under their headers.
    const payments = (await quipu(['payments', 'list', '--receiver', receiver], env)).stdout.split('\n');
    expect(payments[1]!.indexOf('Blue mug')).toBe(payments[0]!.indexOf('SUBJECT'));
    const merchants = (await quipu(['merchants', 'list'], env)).stdout;
    expect(merchants).toMatch(new RegExp(`\\n${account.receiver_id} +developer +Printer\\n`));
  });

  it('payments show prints one payment in full, with its refunds and messages, and --json', async () => {
    const shown = await quipu(['payments', 'show', paid.paymentId], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^payment_id +${paid.paymentId}$`, 'm'));
    expect(shown.stdout).toMatch(/^status +done$/m);
    expect(shown.stdout).toMatch(/^subject +Blue mug$/m);
    expect(shown.stdout).toMatch(/^refunded +300 CLP$/m);
    expect(shown.stdout).toMatch(/\nrefunds\nREFUND +AMOUNT +CREATED\n\S+ +300 CLP +\S+\n/);
    expect(shown.stdout).toMatch(/\nevents\nID +KIND +STATUS +ATTEMPTS +LAST ATTEMPT +DESTINATION\n\S+ +payment\.notification\.3\.0 +\S+ +\d+ +\w+ \S+ \d+ ms/);

    // The API's own URLs are built from the public base URL, which a CLI process is told.
    const json = JSON.parse((await quipu(['payments', 'show', paid.paymentId, '--json'], { ...env, PUBLIC_BASE_URL: server.baseUrl })).stdout);
    expect(json.payment).toEqual((await client(server.baseUrl, account.api_key).get(`/v3/payments/${paid.paymentId}`)).body);
    expect(json.refunded).toBe('300');
    expect(json.refunds).toEqual([{ refund_id: expect.any(String), amount: '300', created_at: expect.any(String) }]);
    expect(json.events[0]).toMatchObject({ kind: 'payment.notification.3.0', subject_id: paid.paymentId, attempt_log: expect.any(Array) });
    expect(json.events[0].attempt_log[0]).toMatchObject({ number: 1, trigger: 'first', outcome: 'delivered', status_code: 200 });

    const missing = await quipu(['payments', 'show', 'nope'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('quipu: Payment not found');
  });
});
