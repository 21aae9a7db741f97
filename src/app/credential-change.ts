// The institution reports that a user's credentials changed (e.g. a forced password change): the
// tokens issued from that user's consents stop working and unfinished flows of that user fail, so
// the user must go through the flow again (contract, token rule 3).
import { consentIdsOfUser, withdrawUnfinishedFlows } from '../store/oauth-authorizations.js';
import { revokeTokens } from '../store/oauth-tokens.js';
import { REVOKED_TOPIC } from './bearer-verifier.js';
import type { AppContext } from './context.js';

/** Returns how many tokens were revoked. `receiverId` limits the effect to one client's consents. */
export async function recordCredentialChange(ctx: AppContext, institutionId: string, userId: string, receiverId?: number): Promise<number> {
  return ctx.feed.transaction(ctx.db, async (trx, publish) => {
    const consentIds = await consentIdsOfUser(trx, institutionId, userId, receiverId);
    const revoked = await revokeTokens(trx, { consentIds }, ctx.clock.now().getTime());
    for (const jti of revoked) await publish(REVOKED_TOPIC, jti);
    await withdrawUnfinishedFlows(trx, institutionId, userId, receiverId);
    return revoked.length;
  });
}
