// Messages of the http channel: a POST of the stored bytes, signed per attempt as the message says,
// to a URL the installation's rules and the account's registered hosts still allow (a URL stored
// before either changed is not sent to).
import { notifyUrlProblem, reachOf } from '../domain/network-address.js';
import { type DestinationRules, registeredHosts } from '../domain/notify-destinations.js';
import { signingHeaders } from '../domain/notification-signature.js';
import type { MessageRow } from '../store/schema.js';
import { HttpSender, type SendResult } from './sender.js';
import type { AttemptContext, Transport } from './transport.js';

export class HttpTransport implements Transport {
  readonly #sender: HttpSender;

  constructor(
    timeoutMs: number,
    connectionsPerOrigin: number,
    private readonly rules: DestinationRules,
  ) {
    this.#sender = new HttpSender(timeoutMs, connectionsPerOrigin);
  }

  async send(message: MessageRow, { account, startedAt, publicOnly }: AttemptContext): Promise<SendResult> {
    // A URL that does not parse fails in the sender, with the parser's words; a name is judged
    // there too, on the address it resolves to.
    const policy = { ...this.rules, privateAllowed: !publicOnly, registered: registeredHosts(account) };
    const problem = URL.canParse(message.url) ? notifyUrlProblem(message.url, policy) : undefined;
    if (problem)
      return {
        delivered: false,
        statusCode: null,
        error: `refused: ${new URL(message.url).hostname} ${problem}`,
        responseExcerpt: null,
        latencyMs: 0,
        retryAfter: undefined,
      };
    const headers = signingHeaders(message.signing, account.secret, startedAt, message.body);
    return this.#sender.send({ url: message.url, contentType: message.content_type, body: message.body, headers }, reachOf(policy));
  }

  close(): Promise<void> {
    return this.#sender.close();
  }
}
