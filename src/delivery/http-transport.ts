// Messages of the http channel: a POST of the stored bytes, signed per attempt as the message says.
import { signingHeaders } from '../domain/notification-signature.js';
import type { MessageRow } from '../store/schema.js';
import { HttpSender, type SendResult } from './sender.js';
import type { AttemptContext, Transport } from './transport.js';

export class HttpTransport implements Transport {
  readonly #sender: HttpSender;

  constructor(timeoutMs: number, connectionsPerOrigin: number) {
    this.#sender = new HttpSender(timeoutMs, connectionsPerOrigin);
  }

  send(message: MessageRow, { account, startedAt, publicOnly }: AttemptContext): Promise<SendResult> {
    const headers = signingHeaders(message.signing, account.secret, startedAt, message.body);
    return this.#sender.send({ url: message.url, contentType: message.content_type, body: message.body, headers }, publicOnly);
  }

  close(): Promise<void> {
    return this.#sender.close();
  }
}
