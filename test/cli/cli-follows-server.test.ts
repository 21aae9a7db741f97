// The commands that act, run as the README shows (no PORT, no PUBLIC_BASE_URL) beside a
// `quipu serve` on another port than the default, write the links the server writes itself: the
// receipt_url of `quipu payments pay`, `quipu scenarios run` and `quipu demobank charges settle`,
// read back over the API and in the signed notifications the server's worker delivers. Each says
// which server it followed; an address set in the environment still wins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.js';
import { type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { newCharge } from '../helpers/subscriptions.js';

const DEMO = { DEMO_API_KEY: '7c4d1f0e-9b2a-4e3c-8d5f-1a2b3c4d5e6f', DEMO_SECRET: '0123456789abcdef0123456789abcdef01234567', DEMO_RECEIVER_ID: '271828' };
const processes = withServerProcesses();
let receiver: Receiver;
let serverBaseUrl: string;
let publicUrl: string;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  receiver = await startReceiver();
  const { database, started } = processes;
  const server = await serveOnFreePort({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', ...DEMO }, started);
  await server.waitFor('quipu is listening');
  serverBaseUrl = server.baseUrl;
  publicUrl = `http://localhost:${new URL(server.baseUrl).port}`;
  // The README's environment: the database, and neither PORT nor PUBLIC_BASE_URL (empty is unset).
  cliEnv = { DATABASE_URL: database.url, DATA_DIR: database.dataDir, LOG_LEVEL: 'warn', PORT: '', PUBLIC_BASE_URL: '' };
}, 60_000);
afterAll(async () => receiver?.close());

const api = () => client(serverBaseUrl, DEMO.DEMO_API_KEY);

async function act(args: string[]): Promise<string> {
  const result = await quipu(args, cliEnv);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain(`server: ${publicUrl} (recorded by quipu serve)\n`);
  return result.stdout;
}

/** The receipt_url the API reads back, and the one in the payment's signed 3.0 notification. */
async function receiptUrls(paymentId: string): Promise<{ read: string; notified: string }> {
  const read = (await api().get(`/v3/payments/${paymentId}`)).body.receipt_url as string;
  const ofPayment = (body: string) => body.includes(paymentId) && JSON.parse(body).receipt_url !== '';
  await receiver.waitFor((requests) => requests.some((r) => ofPayment(r.body)), 30_000);
  const notification = receiver.requests.find((r) => ofPayment(r.body))!;
  expect(notification.headers['x-khipu-signature']).toBeDefined();
  return { read, notified: JSON.parse(notification.body).receipt_url };
}

describe('acting commands beside a running server', { timeout: 120_000 }, () => {
  /** The receipt_url the server writes for a payment: its PDF, named after the minute it was reconciled. */
  let serverReceipt: (paymentId: string) => unknown;

  it('the server itself writes its own address', async () => {
    expect((await quipu(['merchants', 'update', DEMO.DEMO_RECEIVER_ID, '--notify-url', receiver.url, '--notify-api-version', '3.0'], cliEnv)).code).toBe(0);
    const run = await api().post('/sandbox/scenarios/transfer-pays/run');
    expect(run.status).toBe(200);
    const paidByServer = run.body.payment.payment_id as string;
    const { read, notified } = await receiptUrls(paidByServer);
    expect(read).toMatch(new RegExp(`^${publicUrl}/payment/receipt/CPKH-\\d{10}-${paidByServer}\\.pdf$`));
    expect(notified).toBe(read);
    const folder = read.slice(0, read.lastIndexOf('/') + 1);
    serverReceipt = (paymentId) => expect.stringMatching(new RegExp(`^${folder}CPKH-\\d{10}-${paymentId}\\.pdf$`));
  });

  it('quipu payments pay writes the same links', async () => {
    const created = await api().post('/v3/payments', { amount: 1500, currency: 'CLP', subject: 'Paid from the command line' });
    const paymentId = created.body.payment_id as string;
    expect(await act(['payments', 'pay', paymentId])).toContain(paymentId);
    expect(await receiptUrls(paymentId)).toEqual({ read: serverReceipt(paymentId), notified: serverReceipt(paymentId) });
  });

  it('quipu scenarios run writes the same links', async () => {
    const run = JSON.parse(await act(['scenarios', 'run', 'transfer-pays', '--receiver', DEMO.DEMO_RECEIVER_ID, '--json']));
    const paymentId = run.payment.payment_id as string;
    expect(await receiptUrls(paymentId)).toEqual({ read: serverReceipt(paymentId), notified: serverReceipt(paymentId) });
  });

  it('quipu demobank charges settle writes the same links', async () => {
    const mandate = JSON.parse(await act(['scenarios', 'run', 'mandate-enabled', '--receiver', DEMO.DEMO_RECEIVER_ID, '--json']));
    const charge = await api().post(
      '/v1/automatic-payment/charge-intent',
      newCharge(mandate.subscription.subscription_id, { amount: 1000, notify_url: receiver.url }),
    );
    expect(charge.status).toBe(200);
    const paymentId = charge.body.payment_id as string;
    expect(await act(['demobank', 'charges', 'settle', paymentId])).toContain(paymentId);
    expect(await receiptUrls(paymentId)).toEqual({ read: serverReceipt(paymentId), notified: serverReceipt(paymentId) });
  });

  it('a command that only reads follows the server too, and an address set in the environment wins', async () => {
    const list = async (env: Record<string, string>) => {
      const result = await quipu(['payments', 'list', '--receiver', DEMO.DEMO_RECEIVER_ID, '--json'], { ...cliEnv, ...env });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout).items[0].payment_url as string;
    };
    expect(await list({})).toMatch(new RegExp(`^${publicUrl}/`));
    expect(await list({ PUBLIC_BASE_URL: 'https://pay.example' })).toMatch(/^https:\/\/pay\.example\//);
  });
});
