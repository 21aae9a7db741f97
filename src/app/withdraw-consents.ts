// A user's consents at an institution are withdrawn: the tokens issued from them stop working
// (the same revocation as /oauth2/revoke's, told to every process through the feed) and the user's
// unfinished flows there fail, so the client must send the user through the flow again. Two
// callers: the institution reporting that the user's credentials changed (contract, token rule 3),
// and the user withdrawing one client's consent on the review page (consent-review.ts).
import { consentIdsOfUser, withdrawUnfinishedFlows } from '../store/oauth-authorizations.js';
import { revokeTokens } from '../store/oauth-tokens.js';
import { REVOKED_TOPIC } from './bearer-verifier.js';
import type { AppContext } from './context.js';

/** Returns how many tokens were revoked. `receiverId` limits the effect to one client's consents. */
export async function withdrawConsents(ctx: AppContext, institutionId: string, userId: string, receiverId?: number): Promise<number> {
  return ctx.feed.transaction(ctx.db, async (trx, publish) => {
    const consentIds = await consentIdsOfUser(trx, institutionId, userId, receiverId);
    const revoked = await revokeTokens(trx, { consentIds }, ctx.clock.now().getTime());
    for (const jti of revoked) await publish(REVOKED_TOPIC, jti);
    await withdrawUnfinishedFlows(trx, institutionId, userId, receiverId);
    return revoked.length;
  });
}
