// Sends a message again, now: the same body and ids, as a new round of delivery (if it fails, the
// retry schedule starts over from this moment). An attempt already in flight finishes first. A
// message withdrawn unsent (an email asking to pay a payment that was paid since) stays so.
import { DomainError, stateError } from '../domain/errors.js';
import { wallClockMs } from '../runtime/wall-clock.js';
import { findMessageRow, restartDelivery } from '../store/messages.js';
import type { MessageRow } from '../store/schema.js';
import { inTransaction } from '../store/transaction.js';
import type { AppContext } from './context.js';

/** Only the account's own (`receiverId`) and only of `kinds`, when given; `noun` names it in the 404. */
export async function resendMessage(
  ctx: AppContext,
  messageId: string,
  options: { receiverId?: number; kinds?: readonly string[]; noun: string },
): Promise<MessageRow> {
  return inTransaction(ctx.db, async (trx) => {
    const message = await findMessageRow(trx, messageId, options.receiverId, options.kinds);
    // A message past the retention is gone like one that never was; the answer says both.
    if (!message)
      throw new DomainError(
        'not_found',
        `${options.noun} not found: there is none with this id, or it finished more than ${ctx.config.messageRetentionDays} days ago and was pruned (MESSAGE_RETENTION_DAYS)`,
      );
    if (message.status === 'cancelled')
      throw stateError(`This ${options.noun.toLowerCase()} was withdrawn unsent, because what it was about has changed; it cannot be sent again`);
    if (!(await restartDelivery(trx, messageId, ctx.clock.now().getTime(), wallClockMs(ctx.clock)))) {
      throw new DomainError('conflict', `A delivery attempt of this ${options.noun.toLowerCase()} is in progress; try again shortly`);
    }
    return (await findMessageRow(trx, messageId))!;
  });
}
