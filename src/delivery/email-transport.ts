// Messages of the email channel. With SMTP_URL set, each attempt hands the stored email to that
// mail server (nodemailer, a pool of as many connections as one destination may use): the same
// email on every attempt, with a Message-ID derived from the message's id, and a deadline like any
// request, so a server that hangs holds only its own share of the worker until then. Given as
// SMTP_URL_FILE, the file is read again before each email: a secrets manager's new password (or
// server) is used from the next email on, by a new pool, the old one closed once its emails in
// flight are answered (ASVS 13.2.1). So is the OAuth 2.0 access token of SMTP_OAUTH2_TOKEN_FILE,
// which the platform refreshes: the URL's user signs in with it (XOAUTH2), never with a password.
// Without SMTP_URL, emails stay in the local inbox (the messages table, read through the emails API
// and `quipu emails`): accepted at once, so a developer sees every email without a mail server.
// nodemailer is loaded with the first email sent, not with every worker and server (about 35 ms of
// their start).
import { performance } from 'node:perf_hooks';
import type { NodemailerError, Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { type Config, readSecretFile, smtpUrlProblem, smtpUser } from '../config.js';
import { decodeEmail, emailMessageId } from '../domain/email-message.js';
import type { MessageRow } from '../store/schema.js';
import { DeadlineExceeded, deadlineMessage, Deadlines, type Expirable } from './deadlines.js';
import type { SendResult } from './sender.js';
import type { Transport } from './transport.js';

const EXCERPT_CHARS = 500;
const INBOX_EXCERPT = 'kept in the local inbox';

const inbox: Transport = {
  send: async () => ({ delivered: true, statusCode: null, error: null, responseExcerpt: INBOX_EXCERPT, latencyMs: 0, retryAfter: undefined }),
  close: async () => {},
};

/** `SMTP 550 ...` when the server refused, `timeout: ...` when it did not answer in time, a refused STARTTLS as such, else the connection's error. */
function describeError(error: NodemailerError, timeoutMs: number): string {
  if (error.cause instanceof DeadlineExceeded) return `timeout: ${error.cause.message}`;
  // Sent only when TLS is required (SMTP_REQUIRE_TLS): a refusal means the email is never sent in the clear.
  if (error.command === 'STARTTLS') return `the server refused STARTTLS and TLS is required (SMTP_REQUIRE_TLS): ${error.response ?? error.message}`;
  if (error.responseCode) return `SMTP ${error.response ?? error.responseCode}`;
  // nodemailer's own timers run to the same bound as the deadline and, on a busy event loop, may fire first.
  if (error.code === 'ETIMEDOUT') return `timeout: ${deadlineMessage(timeoutMs)}`;
  return error.message;
}

/** An attempt's deadline: it aborts the send, which fails it and closes the connection it held. */
class Attempt implements Expirable {
  readonly #controller = new AbortController();
  readonly signal = this.#controller.signal;

  expire(reason: DeadlineExceeded): void {
    this.#controller.abort(reason);
  }
}

/** How the mail server is reached and signed in to: SMTP_URL, and the OAuth 2.0 access token when one is given. */
interface SignIn {
  url: string;
  accessToken: string | undefined;
}

const sameSignIn = (a: SignIn, b: SignIn) => a.url === b.url && a.accessToken === b.accessToken;

/** The pooled connections to the mail server of one sign-in, and the emails they are sending. */
interface Mailer {
  signIn: SignIn;
  transporter: Promise<Transporter>;
  sending: number;
  replaced: boolean;
}

const closeMailer = async (mailer: Mailer) => (await mailer.transporter).close();

class SmtpTransport implements Transport {
  #mailer: Mailer | undefined;
  readonly #deadlines: Deadlines;

  constructor(
    /** SMTP_URL as read at start, and SMTP_URL_FILE, which it was read from: read again before each email. */
    private readonly url: string,
    private readonly urlFile: string | undefined,
    /** SMTP_OAUTH2_TOKEN_FILE: read before each email. */
    private readonly tokenFile: string | undefined,
    private readonly timeoutMs: number,
    private readonly connections: number,
    private readonly requireTls: boolean,
    private readonly log: Logger,
  ) {
    this.#deadlines = new Deadlines(timeoutMs);
  }

  async #currentUrl(): Promise<string> {
    if (!this.urlFile) return this.url;
    const url = await readSecretFile('SMTP_URL', this.urlFile);
    const problem = smtpUrlProblem(url, this.tokenFile !== undefined);
    if (problem) throw new Error(`SMTP_URL_FILE names ${this.urlFile}, whose URL ${problem}`);
    return url;
  }

  async #currentToken(): Promise<string | undefined> {
    if (!this.tokenFile) return undefined;
    const token = await readSecretFile('SMTP_OAUTH2_TOKEN', this.tokenFile);
    if (token === '') throw new Error(`SMTP_OAUTH2_TOKEN_FILE names ${this.tokenFile}, which is empty`);
    return token;
  }

  async #currentSignIn(): Promise<SignIn> {
    try {
      return { url: await this.#currentUrl(), accessToken: await this.#currentToken() };
    } catch (error) {
      // The message names the file and why, never what it holds.
      this.log.error({ err: error }, 'the mail server settings cannot be read; the email is not sent');
      throw error;
    }
  }

  /** The mailer of the sign-in as it is now, counted as sending until released. */
  async #take(): Promise<Mailer> {
    const signIn = await this.#currentSignIn();
    if (!this.#mailer || !sameSignIn(this.#mailer.signIn, signIn)) {
      const before = this.#mailer;
      this.#mailer = { signIn, transporter: this.#transporter(signIn), sending: 0, replaced: false };
      if (before) {
        before.replaced = true;
        if (before.sending === 0) void closeMailer(before);
      }
    }
    this.#mailer.sending++;
    return this.#mailer;
  }

  #release(mailer: Mailer): void {
    mailer.sending--;
    if (mailer.replaced && mailer.sending === 0) void closeMailer(mailer);
  }

  #transporter({ url, accessToken }: SignIn): Promise<Transporter> {
    return import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url,
        ...(accessToken === undefined ? {} : { auth: { type: 'OAuth2', user: smtpUser(url), accessToken } }),
        pool: true,
        maxConnections: this.connections,
        connectionTimeout: this.timeoutMs,
        greetingTimeout: this.timeoutMs,
        socketTimeout: this.timeoutMs,
        dnsTimeout: this.timeoutMs,
        disableFileAccess: true,
        disableUrlAccess: true,
        requireTLS: this.requireTls,
      }),
    );
  }

  async send(message: MessageRow): Promise<SendResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const attempt = new Attempt();
    this.#deadlines.track(attempt);
    let mailer: Mailer | undefined;
    try {
      mailer = await this.#take();
      const email = decodeEmail(message.body);
      const info = await (
        await mailer.transporter
      ).sendMail({
        from: email.from,
        to: email.toName === null ? email.to : { name: email.toName, address: email.to },
        subject: email.subject,
        text: email.text,
        html: email.html,
        attachments: email.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.contentBase64, encoding: 'base64' })),
        messageId: emailMessageId(message.message_id, email.from),
        date: new Date(message.created_at),
        signal: attempt.signal,
      });
      const reply = String(info.response ?? '');
      return {
        delivered: true,
        statusCode: Number(/^\d{3}/.exec(reply)?.[0]) || null,
        error: null,
        responseExcerpt: reply.slice(0, EXCERPT_CHARS),
        latencyMs: latency(),
        retryAfter: undefined,
      };
    } catch (error) {
      const e = error as NodemailerError;
      return {
        delivered: false,
        statusCode: e.responseCode ?? null,
        error: describeError(e, this.timeoutMs),
        responseExcerpt: e.response?.slice(0, EXCERPT_CHARS) ?? null,
        latencyMs: latency(),
        retryAfter: undefined,
      };
    } finally {
      this.#deadlines.release(attempt);
      if (mailer) this.#release(mailer);
    }
  }

  async close(): Promise<void> {
    if (this.#mailer) await closeMailer(this.#mailer);
  }
}

/**
 * The transport of the email channel for a worker: the mail server of SMTP_URL, or the local
 * inbox, which a production installation (SANDBOX=false) is warned about at start: its payers
 * would get no email.
 */
export function emailTransport(
  config: Pick<Config, 'smtpUrl' | 'smtpUrlFile' | 'smtpOauth2TokenFile' | 'smtpRequireTls' | 'sandbox'>,
  log: Logger,
  timeoutMs: number,
  connections: number,
): Transport {
  if (config.smtpUrl)
    return new SmtpTransport(config.smtpUrl, config.smtpUrlFile, config.smtpOauth2TokenFile, timeoutMs, connections, config.smtpRequireTls, log);
  if (!config.sandbox) log.warn('SMTP_URL is not set: payer emails are kept in the local inbox and never sent (set SMTP_URL on a production installation)');
  return inbox;
}
