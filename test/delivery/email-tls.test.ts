// Payers' emails leave a production installation (SANDBOX=false) only over TLS (ASVS 12.3.1): an
// smtp:// server that offers no STARTTLS is handed nothing, the attempt failing with why, unless
// the operator says SMTP_REQUIRE_TLS=false (a relay on the same host). Developer mode keeps taking
// whatever the server offers. A server that does offer TLS, STARTTLS or smtps://, is handed the
// email inside the session only once its certificate is verified (12.3.2): one from the
// operator's own CA, trusted through NODE_EXTRA_CA_CERTS, is; one from a CA nobody trusted gets
// nothing, not even in the clear.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/delivery/worker.js';
import { testWorker } from '../helpers/delivery.js';
import { emailFirstAttempt, type MailServer, type MailServerTls, startMailServer } from '../helpers/mail-server.js';
import { quipu, serveOnFreePort, withServerProcesses } from '../helpers/process.js';
import { PRODUCTION_SETTINGS, secretFileSetting } from '../helpers/production.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { type ServerCertificate, TestCertificates } from '../helpers/test-certificates.js';

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
    return await emailFirstAttempt(server.baseUrl, (await server.account({ developer: false })).api_key);
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

describe('a mail server that takes TLS', () => {
  const processes = withServerProcesses();
  let certificates: TestCertificates;
  let trustedCa: string;
  let fromOurCa: ServerCertificate;
  let fromUnknownCa: ServerCertificate;
  let apiKey: string;
  const production = (settings: Record<string, string>) => ({
    ...PRODUCTION_SETTINGS,
    DATABASE_URL: processes.database.url,
    DATA_DIR: processes.database.dataDir,
    LOG_LEVEL: 'info',
    DELIVERY_POLL_MS: '50',
    // The test mail server takes a password, which test/cli/mail-sign-in.test.ts refuses: accepted here, where TLS is the point.
    SMTP_CREDENTIALS_ACCEPTED: 'true',
    ...settings,
  });

  beforeAll(async () => {
    certificates = new TestCertificates();
    const ours = certificates.authority('Quipu test mail CA');
    trustedCa = ours.certFile;
    fromOurCa = ours.issue(['mail.quipu.test', 'IP:127.0.0.1']);
    fromUnknownCa = certificates.authority('Unknown CA').issue(['mail.quipu.test', 'IP:127.0.0.1']);
    expect((await quipu(['migrate'], production({}))).code).toBe(0);
    const created = await quipu(['merchants', 'create', '--name', 'Mail over TLS', '--production', '--json'], production({}));
    expect(created.code, created.stderr).toBe(0);
    apiKey = JSON.parse(created.stdout).api_key;
  });
  afterAll(() => certificates?.remove());

  /** A collection email's first attempt, sent by a production `quipu serve` that trusts our CA, to a mail server with `tls`. */
  async function firstAttemptOverTls(tls: MailServerTls) {
    const mail = await startMailServer(undefined, tls);
    // Node reads NODE_EXTRA_CA_CERTS once, at the start of the process: the worker runs in a server process of its own.
    const server = await serveOnFreePort(production({ ...secretFileSetting('SMTP_URL', mail.url), NODE_EXTRA_CA_CERTS: trustedCa }), processes.started);
    try {
      return { ...(await emailFirstAttempt(server.baseUrl, apiKey)), mails: mail.mails };
    } finally {
      await server.stop();
      await mail.close();
    }
  }

  it.each([
    ['STARTTLS', false],
    ['smtps://', true],
  ])('is handed the email inside a TLS session (%s) when its certificate comes from a CA the process trusts', async (_name, implicit) => {
    const { attempt, mails, paymentId } = await firstAttemptOverTls({ certificate: fromOurCa, implicit });
    expect(attempt).toMatchObject({ outcome: 'delivered' });
    expect(mails).toHaveLength(1);
    expect(mails[0]!.raw).toContain(paymentId);
    expect(mails[0]!.tls).toBe('TLSv1.3');
  });

  it.each([
    ['STARTTLS', false],
    ['smtps://', true],
  ])('is handed nothing (%s) when its certificate comes from a CA the process does not trust, the attempt saying why', async (_name, implicit) => {
    const { attempt, mails } = await firstAttemptOverTls({ certificate: fromUnknownCa, implicit });
    expect(attempt).toMatchObject({ outcome: 'failed', error: 'unable to verify the first certificate' });
    expect(mails).toEqual([]);
  });
});
