// The keys that sign tokens, cached per process. The newest unretired key signs; keys retired by a
// rotation keep verifying (and stay in the JWKS) for one token lifetime, so no issued token is
// invalidated by `quipu keys rotate`. Private keys are kept sealed with the secret box.
import { calculateJwkThumbprint, type CryptoKey, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { TOKEN_ALGORITHM, TOKEN_LIFETIME_SECONDS } from '../domain/oauth-tokens.js';
import type { ShiftableClock } from '../runtime/clock.js';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';
import type { SecretBox } from '../runtime/secret-box.js';
import { insertKey, isLiveKey, liveKeys } from '../store/oauth-keys.js';
import type { DB } from '../store/schema.js';
import { ReloadedRing, unknownKidMemory } from './reloaded-ring.js';

export const KEYS_TOPIC = 'oauth-keys';

/** Every kid is an RFC 7638 thumbprint (SHA-256, base64url): anything else is not looked up. */
const KID = /^[A-Za-z0-9_-]{43}$/;

export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

interface LoadedKeys {
  signing: SigningKey | undefined;
  verifying: Map<string, CryptoKey>;
  jwks: JWK[];
}

/** Keys retired before this instant verify nothing any more: all their tokens have expired. */
export function keyRetentionCutoff(now: Date): number {
  return now.getTime() - TOKEN_LIFETIME_SECONDS * 1000;
}

/** Creates a signing key (ES256, kid = its RFC 7638 thumbprint) and stores it sealed. */
export async function createSigningKey(db: Kysely<DB>, secrets: SecretBox, now: Date): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  await insertKey(db, {
    kid,
    alg: TOKEN_ALGORITHM,
    public_jwk: JSON.stringify({ ...jwk, kid, alg: TOKEN_ALGORITHM, use: 'sig' }),
    private_key_enc: secrets.seal(await exportPKCS8(privateKey)),
    created_at: now.getTime(),
    retired_at: null,
  });
  return kid;
}

export class KeyRing {
  readonly #ring: ReloadedRing<LoadedKeys>;
  readonly #unknownKids = unknownKidMemory();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly secrets: SecretBox,
    private readonly clock: ShiftableClock,
    private readonly feed: InvalidationFeed,
  ) {
    this.#ring = new ReloadedRing(feed, KEYS_TOPIC, () => this.#load());
  }

  #keys(): Promise<LoadedKeys> {
    return this.#ring.get();
  }

  async #load(): Promise<LoadedKeys> {
    const rows = await liveKeys(this.db, keyRetentionCutoff(this.clock.now()));
    const verifying = new Map<string, CryptoKey>();
    const jwks: JWK[] = [];
    for (const row of rows) {
      const jwk = JSON.parse(row.public_jwk) as JWK;
      verifying.set(row.kid, (await importJWK(jwk, TOKEN_ALGORITHM)) as CryptoKey);
      jwks.push(jwk);
    }
    // Rows come newest first: the first unretired one signs.
    const current = rows.find((r) => r.retired_at === null);
    const signing = current ? { kid: current.kid, key: await importPKCS8(this.secrets.open(current.private_key_enc), TOKEN_ALGORITHM) } : undefined;
    return { signing, verifying, jwks };
  }

  /** The key new tokens are signed with; the first one is created on first use. */
  async signingKey(): Promise<SigningKey> {
    return this.#ring.getOrCreate(
      (keys) => keys.signing,
      () => this.#createFirstKey(),
      'signing key',
    );
  }

  async #createFirstKey(): Promise<void> {
    await this.feed.transaction(this.db, async (trx, publish) => {
      const live = await liveKeys(trx, keyRetentionCutoff(this.clock.now()));
      if (live.some((r) => r.retired_at === null)) return;
      const kid = await createSigningKey(trx, this.secrets, this.clock.now());
      await publish(KEYS_TOPIC, kid);
    });
  }

  /** The public key with this kid, if it still verifies tokens. */
  async verificationKey(kid: string): Promise<CryptoKey | undefined> {
    const found = (await this.#keys()).verifying.get(kid);
    if (found || !KID.test(kid) || this.#unknownKids.has(kid)) return found;
    // One indexed read, and the loaded keys are replaced only when the kid is really there.
    if (!(await isLiveKey(this.db, kid, keyRetentionCutoff(this.clock.now())))) {
      this.#unknownKids.set(kid, true);
      return undefined;
    }
    this.#ring.forget();
    return (await this.#keys()).verifying.get(kid);
  }

  /** The JWKS document: every key that still verifies, newest first. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.signingKey();
    return { keys: (await this.#keys()).jwks };
  }
}
