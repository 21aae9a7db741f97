// A channel's way of sending (domain/message-kinds.ts): the worker claims messages, keeps their
// schedule and records their attempts; a transport makes one attempt and says what it came to.
import type { Merchant } from '../domain/merchant.js';
import type { MessageRow } from '../store/schema.js';
import type { SendResult } from './sender.js';

export interface AttemptContext {
  /** The account the message belongs to (its secret signs, its mode decides where it may send). */
  account: Merchant;
  /** When the attempt starts (developer clock): signatures carry it. */
  startedAt: number;
  /** Only public internet addresses may be reached (production accounts; every account when SANDBOX=false). */
  publicOnly: boolean;
}

/** What an attempt's log keeps of its result, whoever made the attempt (the worker, or a page that sends at once). */
export function loggedResult(result: SendResult) {
  return {
    latency_ms: result.latencyMs,
    outcome: result.delivered ? 'delivered' : 'failed',
    status_code: result.statusCode,
    error: result.error,
    response_excerpt: result.responseExcerpt,
  };
}

export interface Transport {
  /** One attempt. Never throws: a failure is a result. */
  send(message: MessageRow, attempt: AttemptContext): Promise<SendResult>;
  close(): Promise<void>;
}
