// Bearer authentication of the merchant APIs. A token is checked in full once (signature with a
// current or previous key, algorithm, issuer, audience, typ, expiry), then kept in a bounded cache,
// so a repeated token costs two cache reads, about what an API key costs. What its jti's row says is
// cached as well: a revocation reaches this cache as soon as it commits in the process that made
// it, and through the invalidation feed (every INVALIDATION_POLL_MS) in every other one. Each use
// also checks what ends a token without touching its row: its longest life on the wall clock, and
// the receiver secret it was obtained with, which must still authenticate the account as cached
// (a rotation reaches every process's account cache through the same feed).
import { wallClockMs } from '../runtime/wall-clock.js';
import { LRUCache } from 'lru-cache';
import type { Merchant } from '../domain/merchant.js';
import { type TokenOrigin, tokenLives } from '../domain/oauth-tokens.js';
import { findTokenState } from '../store/oauth-tokens.js';
import type { AppContext, BearerAuthentication } from './context.js';
import { type AccessTokenFacts, verifyAccessToken } from './signed-tokens.js';
import { KeyRing } from './token-keys.js';

export const REVOKED_TOPIC = 'oauth-token-revoked';

/** What each use checks again of a token's row, or 'refused' for good: revoked, never issued here, or issued to another account. */
type RowFacts = TokenOrigin | 'refused';

export class BearerVerifier implements BearerAuthentication {
  readonly #tokens: LRUCache<string, AccessTokenFacts>;
  /** jti → what its row says. */
  readonly #rows: LRUCache<string, RowFacts>;

  constructor(
    private readonly ctx: AppContext,
    private readonly keys: KeyRing,
  ) {
    this.#tokens = new LRUCache({ max: ctx.config.credentialCacheSize });
    this.#rows = new LRUCache({ max: ctx.config.credentialCacheSize });
    ctx.feed.on(REVOKED_TOPIC, (jti) => this.#rows.set(jti, 'refused'));
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
    const row = await this.#row(facts);
    if (row === 'refused') return undefined;
    const merchant = await this.ctx.merchants.byReceiverId(facts.receiverId);
    return merchant && this.#lives(row, merchant) ? merchant : undefined;
  }

  cached(token: string): Merchant | undefined {
    const facts = this.#tokens.get(token);
    if (!facts || this.#expired(facts)) return undefined;
    const row = this.#rows.get(facts.jti);
    if (row === undefined || row === 'refused') return undefined;
    const merchant = this.ctx.merchants.cachedByReceiverId(facts.receiverId);
    return merchant && this.#lives(row, merchant) ? merchant : undefined;
  }

  #expired(facts: AccessTokenFacts): boolean {
    return facts.exp * 1000 <= this.ctx.clocks.of(facts.receiverId).now().getTime();
  }

  /** What ends a token without a change of its row: its longest life, and the end of the secret it was obtained with. */
  #lives(row: Exclude<RowFacts, 'refused'>, merchant: Merchant): boolean {
    return tokenLives(row, merchant, wallClockMs(this.ctx.clocks));
  }

  async #row(facts: AccessTokenFacts): Promise<RowFacts> {
    const known = this.#rows.get(facts.jti);
    if (known !== undefined) return known;
    const row = await findTokenState(this.ctx.db, facts.jti);
    const read: RowFacts =
      !row || row.revoked_at !== null || row.receiver_id !== facts.receiverId
        ? 'refused'
        : { secret_generation: row.secret_generation, wall_issued_at: row.wall_issued_at };
    // A revocation heard while the row was being read wins over what the read saw.
    if (this.#rows.get(facts.jti) === 'refused') return 'refused';
    this.#rows.set(facts.jti, read);
    return read;
  }
}

/** What `AppContext.bearer` holds: a verifier with this process's own key cache. */
export function bearerAuthentication(ctx: AppContext): BearerAuthentication {
  return new BearerVerifier(ctx, new KeyRing(ctx.db, ctx.secrets, ctx.clocks, ctx.feed));
}
