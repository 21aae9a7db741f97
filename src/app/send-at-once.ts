// Messages sent by the web process itself, once, while the developer waits for the outcome: an
// event sent to another URL than its own (signed the same way, logged as one more of its attempts,
// marked with where it went, the event itself left as it stands), and the test event of Settings
// (written to the outbox leased to this process, so no worker sends it too, then attempted once:
// delivered or exhausted, never retried). Both URLs follow the rules of notify_url.
import { randomUUID } from 'node:crypto';
import { loggedResult, type Transport } from '../delivery/transport.js';
import { DomainError, fieldError, stateError } from '../domain/errors.js';
import { isWebUrl } from '../domain/formats.js';
import type { Merchant } from '../domain/merchant.js';
import { kindRule } from '../domain/message-kinds.js';
import { mayNotifyPrivateAddresses, notifyPolicy, notifyUrlProblem } from '../domain/network-address.js';
import { testEventMessage } from '../domain/test-event.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { leaseMessage, logAttemptAside, recordAttempts } from '../store/messages.js';
import type { MessageAttemptRow, MessageRow } from '../store/schema.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, forAccount } from './context.js';
import { getMessage } from './message-queries.js';

/** Refuses, with a 400 naming `field`, a URL that `merchant` may not be sent messages at (the rules of notify_url). */
export function checkNotifiableUrl(ctx: AppContext, merchant: Merchant, field: string, url: string): void {
  const problem = isWebUrl(url) ? notifyUrlProblem(url, notifyPolicy(merchant, ctx.config)) : 'must be an absolute http or https URL';
  if (problem) throw fieldError(field, problem);
}

/** One attempt of `message` at `url`, signed with the account's secret at the attempt's start. */
async function attempt(ctx: AppContext, transport: Transport, message: MessageRow, url: string, merchant: Merchant) {
  const startedAt = ctx.clock.now().getTime();
  const publicOnly = !mayNotifyPrivateAddresses(merchant.developer, ctx.config.sandbox);
  const result = await transport.send({ ...message, url }, { account: merchant, startedAt, publicOnly });
  return {
    message_id: message.message_id,
    receiver_id: message.receiver_id,
    due_at: startedAt,
    started_at: startedAt,
    ...loggedResult(result),
  };
}

/** Sends an HTTP event of the account's (`receiverId`; any, for the operator) to `url`, once, and logs the attempt. */
export async function sendEventTo(given: AppContext, transport: Transport, messageId: string, typed: string, receiverId?: number): Promise<MessageAttemptRow> {
  const url = typed.trim();
  const { message } = await getMessage(given, messageId, { receiverId, noun: 'Event' });
  const ctx = forAccount(given, message.receiver_id);
  if (kindRule(message.kind)?.channel !== 'http') throw stateError('Only events sent over HTTP can be sent to another URL');
  // messages.receiver_id references the account, which is never deleted.
  const merchant = (await ctx.merchants.byReceiverId(message.receiver_id))!;
  checkNotifiableUrl(ctx, merchant, 'url', url);
  const logged = await attempt(ctx, transport, message, url, merchant);
  return logAttemptAside(ctx.db, { ...logged, trigger: 'resend', url }, ctx.clock.now().getTime());
}

/** Sends the test event to the account's notify_url, once; the event and its attempt as logged. */
export async function sendTestEvent(given: AppContext, transport: Transport, merchant: Merchant): Promise<{ message: MessageRow; attempt: MessageAttemptRow }> {
  const ctx = forAccount(given, merchant.receiverId);
  if (!merchant.notifyUrl) throw fieldError('notify_url', 'must be set to send a test event to it');
  checkNotifiableUrl(ctx, merchant, 'notify_url', merchant.notifyUrl);
  const leaseId = randomUUID();
  // Long enough for the attempt (its timeout included); if this process dies first, a worker sends it when the lease ends.
  const leaseUntil = wallClockMs(ctx.clock) + 2 * ctx.config.deliveryTimeoutMs;
  const message = await inTransaction(ctx.db, async (trx) => {
    const row = await ctx.outbox.write(trx, testEventMessage(merchant.receiverId, merchant.notifyUrl!, ctx.clock.now().getTime()));
    await leaseMessage(trx, row.message_id, leaseId, leaseUntil);
    return row;
  });
  const logged = await attempt(ctx, transport, message, message.url, merchant);
  await recordAttempts(ctx.db, [{ attempt: { ...logged, trigger: 'first' }, leaseId, nextAttemptAt: null }], ctx.clocks.scanTime());
  const { message: recorded, attempts } = await getMessage(ctx, message.message_id, { noun: 'Event' });
  const last = attempts.at(-1);
  if (!last) throw new DomainError('conflict', 'The test event was taken over by a delivery worker; see the events page');
  return { message: recorded, attempt: last };
}
