// THE place a payer's attempt moves: the transition table (domain/attempt-status.ts) decides the
// move, and the row changes only if it is still in the state the caller saw (compare-and-set: of
// two requests or processes racing on one attempt, exactly one wins). An attempt sends no message
// of its own: the payment it moves does (change-payment.ts).
import { type AttemptChange, attemptMove } from '../domain/attempt-status.js';
import type { AttemptState, PaymentAttempt } from '../domain/payment-attempt.js';
import { moveAttempt } from '../store/attempts.js';
import type { AppContext } from './context.js';

/** False when the attempt had already left `from`. */
export async function changeAttempt(
  ctx: AppContext,
  attempt: Pick<PaymentAttempt, 'attemptId' | 'receiverId'>,
  from: AttemptState,
  change: AttemptChange,
): Promise<boolean> {
  return moveAttempt(ctx.db, attempt.attemptId, from, attemptMove(from, change, ctx.clocks.of(attempt.receiverId).now()));
}
