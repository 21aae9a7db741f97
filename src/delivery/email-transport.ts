// Messages of the email channel. With SMTP_URL set, each attempt hands the stored email to that
// mail server (nodemailer, a pool of as many connections as one destination may use): the same
// email on every attempt, with a Message-ID derived from the message's id, and a deadline like any
// request, so a server that hangs holds only its own share of the worker until then. Without it,
// emails stay in the local inbox (the messages table, read through the emails API and `quipu
// emails`): accepted at once, so a developer sees every email without a mail server. nodemailer is
// loaded with the first email sent, not with every worker and server (about 35 ms of their start).
import { performance } from 'node:perf_hooks';
import type { NodemailerError, Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
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

class SmtpTransport implements Transport {
  #mailer: Promise<Transporter> | undefined;
  readonly #deadlines: Deadlines;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly connections: number,
    private readonly requireTls: boolean,
  ) {
    this.#deadlines = new Deadlines(timeoutMs);
  }

  #loadMailer(): Promise<Transporter> {
    this.#mailer ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: this.url,
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
    return this.#mailer;
  }

  async send(message: MessageRow): Promise<SendResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const mailer = await this.#loadMailer();
    const attempt = new Attempt();
    this.#deadlines.track(attempt);
    try {
      const email = decodeEmail(message.body);
      const info = await mailer.sendMail({
        from: email.from,
        to: email.toName === null ? email.to : { name: email.toName, address: email.to },
        subject: email.subject,
        text: email.text,
        html: email.html,
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
    }
  }

  async close(): Promise<void> {
    if (this.#mailer) (await this.#mailer).close();
  }
}

/**
 * The transport of the email channel for a worker: the mail server of SMTP_URL, or the local
 * inbox, which a production installation (SANDBOX=false) is warned about at start: its payers
 * would get no email.
 */
export function emailTransport(config: Pick<Config, 'smtpUrl' | 'smtpRequireTls' | 'sandbox'>, log: Logger, timeoutMs: number, connections: number): Transport {
  if (config.smtpUrl) return new SmtpTransport(config.smtpUrl, timeoutMs, connections, config.smtpRequireTls);
  if (!config.sandbox) log.warn('SMTP_URL is not set: payer emails are kept in the local inbox and never sent (set SMTP_URL on a production installation)');
  return inbox;
}
