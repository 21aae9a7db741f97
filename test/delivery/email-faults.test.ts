// A mail server that refuses, is down or hangs: each attempt is a failed attempt in the log (the
// SMTP reply, the connection error, the timeout), retried on the notifications' schedule with the
// same email and Message-ID, exhausted after two days; and HTTP notifications to a healthy
// receiver are delivered meanwhile, since the mail server is one destination with its own share.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { reconciledPayment, testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { ACCEPT, downMailServerUrl, type MailServer, startMailServer } from '../helpers/mail-server.js';
import { eventually, type Receiver, startReceiver } from '../helpers/notification-receiver.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const TIMEOUT_MS = 3_000;

interface Fault {
  name: string;
  /** The mail server of the case (none when it is down) and the SMTP_URL that reaches it. */
  start(): Promise<{ url: string; mail?: MailServer; release?: () => void }>;
  firstAttempt: Record<string, unknown>;
}

const FAULTS: Fault[] = [
  {
    name: 'refuses the email (5xx)',
    start: async () => {
      const mail = await startMailServer(() => ({ refuse: 550, message: 'Mailbox unavailable' }));
      return { url: mail.url, mail };
    },
    firstAttempt: { status_code: 550, error: expect.stringMatching(/^SMTP 550 .*Mailbox unavailable/), response_excerpt: expect.stringContaining('550') },
  },
  {
    name: 'is down',
    start: async () => ({ url: await downMailServerUrl() }),
    firstAttempt: { status_code: null, error: expect.stringContaining('ECONNREFUSED'), response_excerpt: null },
  },
  {
    name: 'hangs',
    start: async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const mail = await startMailServer(() => ({ hold: held }));
      return { url: mail.url, mail, release };
    },
    firstAttempt: { status_code: null, error: `timeout: no complete answer within ${TIMEOUT_MS} ms`, response_excerpt: null },
  },
];

describe.each(FAULTS)('a mail server that $name', (fault) => {
  let server: TestServer;
  let account: TestAccount;
  let healthy: Receiver;
  let worker: DeliveryWorker;
  let mail: MailServer | undefined;
  let release: (() => void) | undefined;

  beforeAll(async () => {
    const started = await fault.start();
    ({ mail, release } = started);
    server = await startTestServer({ SMTP_URL: started.url });
    account = await server.account();
    healthy = await startReceiver();
    worker = testWorker(server, { concurrency: 4, timeoutMs: TIMEOUT_MS });
  });
  afterAll(async () => {
    release?.();
    await worker?.stop();
    await healthy?.close();
    await server?.close();
    await mail?.close();
  });

  const api = () => client(server.baseUrl, account.api_key);
  const emailOf = async (paymentId: string) => {
    const [email] = (await api().get(`/quipu/v1/emails?payment_id=${paymentId}`)).body.emails;
    return (await api().get(`/quipu/v1/emails/${email.id}`)).body;
  };

  it('logs each failed attempt and retries it, while notifications are delivered', async () => {
    // Valid for longer than the two days of retries: an email is never sent after its payment expires.
    const expires = new Date(server.ctx.clock.now().getTime() + 5 * 24 * 3_600_000).toISOString();
    const created = await api().post('/v3/payments', {
      amount: 1000,
      currency: 'CLP',
      subject: 'Faulty mail',
      send_email: true,
      payer_name: 'Ana',
      payer_email: 'ana@example.com',
      expires_date: expires,
    });
    expect(created.status).toBe(200);
    const paymentId = created.body.payment_id;
    if (mail) await mail.waitFor((mails) => mails.length === 1);

    const notified = await reconciledPayment(server, account, { notify_url: healthy.url });
    await healthy.waitFor((requests) => requests.some((r) => r.body.includes(notified.paymentId)));
    // A hanging server still holds its attempt: the notification did not wait for it.
    if (fault.name === 'hangs') expect((await emailOf(paymentId)).attempts).toBe(0);

    const failed = await eventually(
      () => emailOf(paymentId),
      (e) => e.attempts === 1,
    );
    expect(failed).toMatchObject({ status: 'pending', next_attempt_at: expect.any(String), delivered_at: null });
    expect(failed.attempt_log[0]).toMatchObject({ number: 1, trigger: 'first', outcome: 'failed', ...fault.firstAttempt });

    expect((await api().post('/sandbox/clock', { advance: '6s' })).status).toBe(200);
    const retried = await eventually(
      () => emailOf(paymentId),
      (e) => e.attempts === 2,
    );
    expect(retried.attempt_log[1]).toMatchObject({ number: 2, trigger: 'retry', outcome: 'failed', ...fault.firstAttempt });
    if (mail) {
      // Every attempt hands over the same email, under the same Message-ID.
      await mail.waitFor((mails) => mails.length === 2);
      expect(mail.mails.map((m) => m.parsed.messageId)).toEqual([`<${failed.id}@localhost>`, `<${failed.id}@localhost>`]);
      expect(mail.mails[1]!.parsed.text).toBe(mail.mails[0]!.parsed.text);
      expect(mail.mails[1]!.parsed.html).toBe(mail.mails[0]!.parsed.html);
    }

    if (mail) {
      // The server recovers: the next attempt delivers.
      release?.();
      mail.answer(ACCEPT);
      expect((await api().post('/sandbox/clock', { advance: '6m' })).status).toBe(200);
      const delivered = await eventually(
        () => emailOf(paymentId),
        (e) => e.status === 'delivered',
      );
      expect(delivered.attempt_log.map((a: { outcome: string }) => a.outcome)).toEqual(['failed', 'failed', 'delivered']);
      expect(delivered.attempt_log[2]).toMatchObject({ status_code: 250, error: null });
    } else {
      // Down for good: exhausted when its two days are over, like a webhook.
      expect((await api().post('/sandbox/clock', { advance: '2d' })).status).toBe(200);
      const exhausted = await eventually(
        () => emailOf(paymentId),
        (e) => e.status === 'exhausted',
        30_000,
      );
      expect(exhausted.attempts).toBe(9);
      expect(exhausted.next_attempt_at).toBeNull();
    }
  });
});
