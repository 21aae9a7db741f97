// POST /oauth2/revoke (RFC 7009): the token's jti goes on the revocation list and every process
// stops accepting it. A token this service cannot read (unknown, tampered, an id_token) is
// answered like a revoked one: success, nothing to do.
import type { Merchant } from '../domain/merchant.js';
import { TokenEndpointError } from '../domain/oauth-errors.js';
import { revokeTokens } from '../store/oauth-tokens.js';
import { REVOKED_TOPIC } from './bearer-verifier.js';
import type { AppContext } from './context.js';
import { readOwnToken } from './signed-tokens.js';
import type { KeyRing } from './token-keys.js';

export async function revokeToken(ctx: AppContext, keys: KeyRing, client: Merchant, token: string): Promise<void> {
  const claims = await readOwnToken(keys, token);
  if (!claims || claims.iss !== ctx.config.publicBaseUrl || typeof claims.jti !== 'string') return;
  if (claims.sub !== String(client.receiverId)) throw new TokenEndpointError('unauthorized_client', 'The token was not issued to this client');
  const jti = claims.jti;
  await ctx.feed.transaction(ctx.db, async (trx, publish) => {
    for (const revoked of await revokeTokens(trx, { jti }, ctx.clock.now().getTime())) await publish(REVOKED_TOPIC, revoked);
  });
}
