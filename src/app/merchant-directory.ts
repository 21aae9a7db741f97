// Finds accounts by API key or receiver id, with a bounded in-memory cache per process. Changes
// made anywhere reach every process's cache through the invalidation feed.
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { hashApiKey } from '../domain/credentials.js';
import { inGrace, type Merchant, type MerchantFeatures } from '../domain/merchant.js';
import { type SandboxFaults, storedFaults } from '../domain/sandbox-faults.js';
import { findMerchantRow, findReceiverIdByApiKeyHash } from '../store/merchants.js';
import type { DB, MerchantRow } from '../store/schema.js';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';
import type { SecretBox } from '../runtime/secret-box.js';

export const MERCHANT_TOPIC = 'merchant';
export const API_KEY_TOPIC = 'api-key';

export function toMerchant(row: MerchantRow, secrets: SecretBox): Merchant {
  const features: MerchantFeatures = {
    confirm: row.feature_confirm === 1,
    integrator: row.feature_integrator === 1,
    refunds: row.feature_refunds === 1,
    contractUrl: row.feature_contract_url === 1,
    psp: row.feature_psp === 1,
  };
  return {
    receiverId: row.receiver_id,
    name: row.name,
    developer: row.developer === 1,
    secret: secrets.open(row.secret_enc),
    previousSecret:
      row.previous_secret_enc !== null && row.previous_secret_until !== null
        ? { value: secrets.open(row.previous_secret_enc), until: Number(row.previous_secret_until) }
        : null,
    secretGeneration: row.secret_generation,
    previousApiKey:
      row.previous_api_key_hash !== null && row.previous_api_key_until !== null
        ? { value: row.previous_api_key_hash, until: Number(row.previous_api_key_until) }
        : null,
    notifyUrl: row.notify_url,
    notifyHosts: JSON.parse(row.notify_hosts) as string[],
    notifyApiVersion: row.notify_api_version,
    renditionUrl: row.rendition_url,
    features,
    parentReceiverId: row.parent_receiver_id,
    paymentMethods: JSON.parse(row.payment_methods) as string[],
    users: JSON.parse(row.users) as string[],
    collectAccounts: JSON.parse(row.collect_accounts) as string[],
    countryCode: row.country_code,
  };
}

export class MerchantDirectory {
  readonly #byKeyHash: LRUCache<string, number>;
  readonly #byId: LRUCache<number, Merchant>;
  /** The sandbox faults of the accounts found here that have any, read with the account and cached with it. */
  readonly #faults = new WeakMap<Merchant, SandboxFaults>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly secrets: SecretBox,
    feed: InvalidationFeed,
    size: number,
    /** Grace periods of rotated keys end on the wall clock: the developer clock does not extend them. */
    private readonly wallNow: () => number,
  ) {
    this.#byKeyHash = new LRUCache({ max: size });
    this.#byId = new LRUCache({ max: size });
    feed.on(MERCHANT_TOPIC, (item) => this.#byId.delete(Number(item)));
    feed.on(API_KEY_TOPIC, (hash) => this.#byKeyHash.delete(hash));
  }

  /** The account of an API key if both are cached, without waiting: undefined says only "not cached". */
  cachedByApiKey(apiKey: string): Merchant | undefined {
    const hash = hashApiKey(apiKey);
    const receiverId = this.#byKeyHash.get(hash);
    const merchant = receiverId === undefined ? undefined : this.#byId.get(receiverId);
    // A replaced key past its grace period is for byApiKey to refuse and forget.
    return merchant?.previousApiKey?.value === hash ? undefined : merchant;
  }

  /** The account if cached, without waiting: undefined says only "not cached". */
  cachedByReceiverId(receiverId: number): Merchant | undefined {
    return this.#byId.get(receiverId);
  }

  async byApiKey(apiKey: string): Promise<Merchant | undefined> {
    const hash = hashApiKey(apiKey);
    let receiverId = this.#byKeyHash.get(hash);
    if (receiverId === undefined) {
      receiverId = await findReceiverIdByApiKeyHash(this.db, hash, this.wallNow());
      if (receiverId === undefined) return undefined;
      this.#byKeyHash.set(hash, receiverId);
    }
    const merchant = await this.byReceiverId(receiverId);
    // A replaced key stays cached past its grace period: each use checks that period again.
    if (merchant?.previousApiKey?.value === hash && inGrace(merchant.previousApiKey, this.wallNow()) === undefined) {
      this.#byKeyHash.delete(hash);
      return undefined;
    }
    return merchant;
  }

  async byReceiverId(receiverId: number): Promise<Merchant | undefined> {
    const cached = this.#byId.get(receiverId);
    if (cached) return cached;
    const row = await findMerchantRow(this.db, receiverId);
    if (!row) return undefined;
    const merchant = toMerchant(row, this.secrets);
    const faults = row.developer === 1 ? storedFaults(row.sandbox_faults) : null;
    if (faults) this.#faults.set(merchant, faults);
    this.#byId.set(receiverId, merchant);
    return merchant;
  }

  /**
   * The sandbox faults (domain/sandbox-faults.ts) of an account this directory found, null for an
   * account without any: every production account, and nearly every developer-mode one. A request
   * of an account without faults looks no further than this.
   */
  faultsOf(merchant: Merchant): SandboxFaults | null {
    return this.#faults.get(merchant) ?? null;
  }
}
