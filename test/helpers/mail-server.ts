// A mail server for tests: a real SMTP server (smtp-server) on port 0, with a user and a password,
// that keeps every email handed to it (the envelope, the raw message and its parse) and answers as
// the test tells it to: accept it, refuse it with a reply code, or hold the answer (a server that
// hangs). Given a certificate (test-certificates.ts) it takes STARTTLS, or TLS from the first byte
// (smtps://), and hears a password only inside the TLS session.
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { freePort } from './process.js';
import type { ServerCertificate } from './test-certificates.js';
import { expect } from 'vitest';
import { testWorker } from './delivery.js';
import { client } from './http.js';
import { eventually } from './notification-receiver.js';
import { startTestServer } from './server.js';

export const MAIL_USER = 'quipu';
export const MAIL_PASSWORD = 's3cret pass';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  raw: string;
  parsed: ParsedMail;
  /** How the server answered: accepted, refused, or held (no answer yet). */
  answer: 'accepted' | 'refused' | 'held';
  /** The TLS version of the session it came in (`TLSv1.3`), null in the clear. */
  tls: string | null;
}

export interface MailServerTls {
  certificate: ServerCertificate;
  /** TLS from the first byte (smtps://) instead of STARTTLS (smtp://). */
  implicit?: boolean;
}

export type MailAnswer = { accept: true } | { refuse: number; message: string } | { hold: Promise<unknown> };
export type MailResponder = (mail: ReceivedMail) => MailAnswer;

export const ACCEPT: MailResponder = () => ({ accept: true });

export interface MailServer {
  /** SMTP_URL for Quipu, credentials included. */
  url: string;
  mails: ReceivedMail[];
  answer(responder: MailResponder): void;
  /** Resolves once `predicate` holds for the mails received so far. */
  waitFor(predicate: (mails: ReceivedMail[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

class Refusal extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startMailServer(responder: MailResponder = ACCEPT, tls?: MailServerTls): Promise<MailServer> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  let current = responder;
  const server = new SMTPServer({
    logger: false,
    ...(tls ? { key: tls.certificate.key, cert: tls.certificate.cert, secure: tls.implicit === true } : { disabledCommands: ['STARTTLS'] }),
    allowInsecureAuth: !tls,
    closeTimeout: 100,
    onAuth: (auth, _session, callback) =>
      auth.username === MAIL_USER && auth.password === MAIL_PASSWORD
        ? callback(null, { user: auth.username })
        : callback(new Error('Invalid username or password')),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        const mail: ReceivedMail = {
          envelope,
          raw,
          parsed: await simpleParser(raw),
          answer: 'held',
          tls: session.secure && session.tlsOptions ? session.tlsOptions.version : null,
        };
        mails.push(mail);
        const answer = current(mail);
        if ('accept' in answer) {
          mail.answer = 'accepted';
          callback(null, 'OK: queued as test');
        } else if ('refuse' in answer) {
          mail.answer = 'refused';
          callback(new Refusal(answer.refuse, answer.message));
        } else {
          void answer.hold.then(() => {
            mail.answer = 'accepted';
            callback(null, 'OK: queued late');
          });
        }
        for (const wake of waiters) wake();
      });
    },
  });
  // A client that refuses the certificate hangs up in the handshake: the connection's error, not the server's.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `${tls?.implicit ? 'smtps' : 'smtp'}://${MAIL_USER}:${encodeURIComponent(MAIL_PASSWORD)}@127.0.0.1:${port}`,
    mails,
    answer: (next) => {
      current = next;
    },
    waitFor: (predicate, timeoutMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(mails)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`mail server: condition not met within ${timeoutMs} ms (${mails.length} mails)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The address of a mail server that is down: nothing listens there. */
export async function downMailServerUrl(): Promise<string> {
  return `smtp://127.0.0.1:${await freePort()}`;
}

/** The first attempt of a collection email for a new payment, asked of the server at `baseUrl` by the account of `apiKey`. */
export async function emailFirstAttempt(baseUrl: string, apiKey: string, subject = 'By email') {
  const api = client(baseUrl, apiKey);
  const created = await api.post('/v3/payments', {
    amount: 1000,
    currency: 'CLP',
    subject,
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
}

export type SigningInMailServer = Awaited<ReturnType<typeof startSigningInMailServer>>;

/**
 * A mail server in the clear that signs clients in as the test says (`onAuth`: a password, an
 * XOAUTH2 token) and keeps each email's raw text: for the tests of credentials that change between
 * two emails.
 */
export async function startSigningInMailServer(onAuth: NonNullable<SMTPServerOptions['onAuth']>, authMethods?: string[]) {
  const received: string[] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    ...(authMethods ? { authMethods } : {}),
    onAuth,
    onData: (stream, _session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        callback(null, 'OK: queued');
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    /** Whether an email whose text holds `text` (a payment id) was handed over. */
    delivered: (text: string) => received.some((raw) => raw.includes(text)),
    openConnections: () => server.connections.size,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A test server with `env` whose delivery worker (logging to `log`, when given) hands the email
 * channel to the mail server `env` names, and a production account whose collection emails the
 * test sends one at a time: for the tests of how Quipu signs in to a mail server.
 */
export async function startEmailingServer(env: Record<string, string>, log?: Logger) {
  const server = await startTestServer(env);
  const worker = testWorker(log ? { ...server, ctx: { ...server.ctx, log } } : server);
  const apiKey = (await server.account({ developer: false })).api_key;
  return {
    /** Creates a payment with a collection email and answers the email's first attempt. */
    emailAttempt: (subject: string) => emailFirstAttempt(server.baseUrl, apiKey, subject),
    close: async () => {
      await worker.stop();
      await server.close();
    },
  };
}
