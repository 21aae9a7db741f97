// Payers' emails leave a production installation (SANDBOX=false) only over TLS (ASVS 12.3.1): an
// smtp:// server that offers no STARTTLS is handed nothing, the attempt failing with why, unless
// the operator says SMTP_REQUIRE_TLS=false (a relay on the same host). Developer mode keeps taking
// whatever the server offers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { testWorker } from '../helpers/delivery.js';
import { client } from '../helpers/http.js';
import { type MailServer, startMailServer } from '../helpers/mail-server.js';
import { eventually } from '../helpers/notification-receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let mail: MailServer;
beforeAll(async () => {
  mail = await startMailServer();
});
afterAll(async () => mail?.close());

/** A collection email's first attempt, on a server started with `env` and its own worker. */
async function firstAttempt(env: Record<string, string>) {
  const server: TestServer = await startTestServer({ SMTP_URL: mail.url, ...env });
  const worker: DeliveryWorker = testWorker(server);
  try {
    const api = client(server.baseUrl, (await server.account({ developer: false })).api_key);
    const created = await api.post('/v3/payments', {
      amount: 1000,
      currency: 'CLP',
      subject: 'By email',
      send_email: true,
      payer_name: 'Ana',
      payer_email: 'ana@example.com',
    });
    expect(created.status).toBe(200);
    const [email] = (await api.get(`/quipu/v1/emails?payment_id=${created.body.payment_id}`)).body.emails;
    const sent = await eventually(
      async () => (await api.get(`/quipu/v1/emails/${email.id}`)).body,
      (e) => e.attempts > 0,
    );
    return { attempt: sent.attempt_log[0], paymentId: created.body.payment_id as string };
  } finally {
    await worker.stop();
    await server.close();
  }
}

const received = (paymentId: string) => mail.mails.some((m) => m.raw.includes(paymentId));

describe('SMTP without STARTTLS', () => {
  it('is handed nothing by a production installation, the attempt saying why', async () => {
    const { attempt, paymentId } = await firstAttempt({ SANDBOX: 'false' });
    expect(attempt).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/STARTTLS/) });
    expect(received(paymentId)).toBe(false);
  });

  it('is used when the operator says SMTP_REQUIRE_TLS=false', async () => {
    const { attempt, paymentId } = await firstAttempt({ SANDBOX: 'false', SMTP_REQUIRE_TLS: 'false' });
    expect(attempt).toMatchObject({ outcome: 'delivered' });
    expect(received(paymentId)).toBe(true);
  });

  it('is used in developer mode', async () => {
    const { attempt } = await firstAttempt({});
    expect(attempt).toMatchObject({ outcome: 'delivered' });
  });
});
