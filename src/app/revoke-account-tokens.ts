// A merchant ends every access token of its account at once (the dashboard's settings, `quipu
// merchants revoke-tokens`): the same revocation as /oauth2/revoke's, told to every process through
// the feed, for tokens of both grants. The secret still obtains new ones: a merchant whose secret
// may have leaked rotates it as well.
import { notFound } from '../domain/errors.js';
import { receiverIdExists } from '../store/merchants.js';
import { revokeTokens } from '../store/oauth-tokens.js';
import { REVOKED_TOPIC } from './bearer-verifier.js';
import type { AppContext } from './context.js';

/** Returns how many tokens were revoked. */
export async function revokeAccountTokens(ctx: AppContext, receiverId: number): Promise<number> {
  return ctx.feed.transaction(ctx.db, async (trx, publish) => {
    if (!(await receiverIdExists(trx, receiverId))) throw notFound('Merchant');
    const revoked = await revokeTokens(trx, { receiverId }, ctx.clocks.of(receiverId).now().getTime());
    for (const jti of revoked) await publish(REVOKED_TOPIC, jti);
    return revoked.length;
  });
}
