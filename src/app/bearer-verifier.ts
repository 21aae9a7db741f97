// Bearer authentication of the merchant APIs. A token is checked in full once (signature with a
// current or previous key, algorithm, issuer, audience, typ, expiry), then kept in a bounded cache,
// so a repeated token costs two cache reads, about what an API key costs. Its jti's revocation
// state is cached as well: a revocation reaches this cache as soon as it commits in the process
// that made it, and through the invalidation feed (every INVALIDATION_POLL_MS) in every other one.
import { wallClockMs } from '../runtime/wall-clock.js';
import { LRUCache } from 'lru-cache';
import type { Merchant } from '../domain/merchant.js';
import { findTokenState } from '../store/oauth-tokens.js';
import type { AppContext, BearerAuthentication } from './context.js';
import { type AccessTokenFacts, verifyAccessToken } from './signed-tokens.js';
import { KeyRing } from './token-keys.js';

export const REVOKED_TOPIC = 'oauth-token-revoked';

export class BearerVerifier implements BearerAuthentication {
  readonly #tokens: LRUCache<string, AccessTokenFacts>;
  /** jti → revoked. A token whose jti was never issued here counts as revoked. */
  readonly #revoked: LRUCache<string, boolean>;

  constructor(
    private readonly ctx: AppContext,
    private readonly keys: KeyRing,
  ) {
    this.#tokens = new LRUCache({ max: ctx.config.credentialCacheSize });
    this.#revoked = new LRUCache({ max: ctx.config.credentialCacheSize });
    ctx.feed.on(REVOKED_TOPIC, (jti) => this.#revoked.set(jti, true));
  }

  async verify(token: string): Promise<Merchant | undefined> {
    let facts = this.#tokens.get(token);
    if (!facts) {
      // Real time is the earliest of the clocks (they only run ahead of it): the token's expiry is
      // checked below on its account's clock, which the signature check cannot know yet.
      facts = await verifyAccessToken(this.keys, token, this.ctx.config.publicBaseUrl, new Date(wallClockMs(this.ctx.clocks)));
      if (!facts) return undefined;
      this.#tokens.set(token, facts);
    }
    // The developer clock may have moved since the token was cached.
    if (this.#expired(facts)) return undefined;
    if (await this.#isRevoked(facts)) return undefined;
    return this.ctx.merchants.byReceiverId(facts.receiverId);
  }

  cached(token: string): Merchant | undefined {
    const facts = this.#tokens.get(token);
    if (!facts || this.#expired(facts) || this.#revoked.get(facts.jti) !== false) return undefined;
    return this.ctx.merchants.cachedByReceiverId(facts.receiverId);
  }

  #expired(facts: AccessTokenFacts): boolean {
    return facts.exp * 1000 <= this.ctx.clocks.of(facts.receiverId).now().getTime();
  }

  async #isRevoked(facts: AccessTokenFacts): Promise<boolean> {
    const known = this.#revoked.get(facts.jti);
    if (known !== undefined) return known;
    const row = await findTokenState(this.ctx.db, facts.jti);
    const revoked = !row || row.revoked_at !== null || row.receiver_id !== facts.receiverId;
    // A revocation heard while the row was being read wins over what the read saw.
    if (this.#revoked.get(facts.jti) === true) return true;
    this.#revoked.set(facts.jti, revoked);
    return revoked;
  }
}

/** What `AppContext.bearer` holds: a verifier with this process's own key cache. */
export function bearerAuthentication(ctx: AppContext): BearerAuthentication {
  return new BearerVerifier(ctx, new KeyRing(ctx.db, ctx.secrets, ctx.clocks, ctx.feed));
}
