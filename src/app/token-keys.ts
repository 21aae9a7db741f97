// The keys that sign tokens, cached per process. The newest unretired key signs; keys retired by a
// rotation keep verifying (and stay in the JWKS) for one token lifetime, so no issued token is
// invalidated by `quipu keys rotate`. Private keys are kept sealed with the secret box.
import { calculateJwkThumbprint, type CryptoKey, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import { TOKEN_ALGORITHM, TOKEN_LIFETIME_SECONDS } from '../domain/oauth-tokens.js';
import type { ShiftableClock } from '../runtime/clock.js';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';
import type { SecretBox } from '../runtime/secret-box.js';
import { OAUTH_KEYS } from '../store/sealed-keys.js';
import type { DB, OAuthKeyRow } from '../store/schema.js';
import { createKey, type KeyKind, keyCutoff, SealedKeyRing } from './key-ring.js';

export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

const LIFETIME = { lifetimeMs: TOKEN_LIFETIME_SECONDS * 1000 };

/** The signing keys: ES256, each kid its RFC 7638 thumbprint, the private key sealed. */
export function tokenKeys(secrets: SecretBox): KeyKind<OAuthKeyRow, SigningKey, CryptoKey> {
  return {
    ...LIFETIME,
    what: 'signing key',
    topic: 'oauth-keys',
    table: OAUTH_KEYS,
    kidPattern: /^[A-Za-z0-9_-]{43}$/,
    async create(now) {
      const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALGORITHM, { extractable: true });
      const jwk = await exportJWK(publicKey);
      const kid = await calculateJwkThumbprint(jwk);
      return {
        kid,
        alg: TOKEN_ALGORITHM,
        public_jwk: JSON.stringify({ ...jwk, kid, alg: TOKEN_ALGORITHM, use: 'sig' }),
        private_key_enc: secrets.seal(await exportPKCS8(privateKey)),
        created_at: now.getTime(),
        retired_at: null,
      };
    },
    openCurrent: async (row) => ({ kid: row.kid, key: await importPKCS8(secrets.open(row.private_key_enc), TOKEN_ALGORITHM) }),
    open: async (row) => (await importJWK(JSON.parse(row.public_jwk) as JWK, TOKEN_ALGORITHM)) as CryptoKey,
  };
}

/** Keys retired before this instant verify nothing any more: all their tokens have expired. */
export function keyRetentionCutoff(now: Date): number {
  return keyCutoff(LIFETIME, now);
}

/** Creates a signing key and stores it sealed. */
export function createSigningKey(db: Kysely<DB>, secrets: SecretBox, now: Date): Promise<string> {
  return createKey(db, tokenKeys(secrets), now);
}

export class KeyRing extends SealedKeyRing<OAuthKeyRow, SigningKey, CryptoKey> {
  constructor(db: Kysely<DB>, secrets: SecretBox, clock: ShiftableClock, feed: InvalidationFeed) {
    super(db, clock, feed, tokenKeys(secrets));
  }

  /** The key new tokens are signed with; the first one is created on first use. */
  signingKey(): Promise<SigningKey> {
    return this.current();
  }

  /** The public key with this kid, if it still verifies tokens. */
  verificationKey(kid: string): Promise<CryptoKey | undefined> {
    return this.opening(kid);
  }

  /** The JWKS document: every key that still verifies, newest first. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.signingKey();
    return { keys: (await this.rows()).map((row) => JSON.parse(row.public_jwk) as JWK) };
  }
}
