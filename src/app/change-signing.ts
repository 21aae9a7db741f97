// THE place a mandate-signing session moves: the transition table (domain/signing-status.ts)
// decides the move, and the row changes only if it is still in the state the caller saw
// (compare-and-set: of two requests on one session, exactly one wins). A session sends no message
// of its own: the subscription it moves does (change-subscription.ts).
import type { SigningState } from '../domain/mandate-signing.js';
import { type SigningChange, signingMove } from '../domain/signing-status.js';
import { moveSigning } from '../store/mandate-signings.js';
import type { AppContext } from './context.js';

/** False when the session had already left `from`. */
export async function changeSigning(ctx: AppContext, signingId: string, from: SigningState, change: SigningChange): Promise<boolean> {
  return moveSigning(ctx.db, signingId, from, signingMove(from, change, ctx.clock.now()));
}
