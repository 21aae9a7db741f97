// The descriptor key ring, cached per process: the newest unretired key seals new descriptors;
// keys retired by `quipu keys rotate --descriptors` keep opening descriptors until the last one
// they sealed has expired, and are deleted after. Keys are kept sealed with the secret box
// (QUIPU_ENCRYPTION_KEY), like receiver secrets.
import type { Kysely } from 'kysely';
import type { RandomBytes } from '../domain/ids.js';
import { type DescriptorKey, KEY_ID_PATTERN, OPERATION_LIFETIME_MS } from '../domain/operation-descriptor.js';
import type { ShiftableClock } from '../runtime/clock.js';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';
import type { SecretBox } from '../runtime/secret-box.js';
import { deleteDescriptorKeysRetiredBefore, insertDescriptorKey, liveDescriptorKeys, retireDescriptorKeys } from '../store/descriptor-keys.js';
import { keysOfOpenOperationsOutside } from '../store/operations.js';
import type { DB, DescriptorKeyRow } from '../store/schema.js';
import { ReloadedRing, unknownKidMemory } from './reloaded-ring.js';

export const DESCRIPTOR_KEYS_TOPIC = 'descriptor-keys';

/** Keys retired before this instant open nothing any more: every descriptor they sealed has expired. */
export function descriptorKeyCutoff(now: Date): number {
  return now.getTime() - OPERATION_LIFETIME_MS;
}

/** Creates a key (32 random bytes, a 16-hex kid) and stores it sealed. */
export async function createDescriptorKey(db: Kysely<DB>, secrets: SecretBox, random: RandomBytes, now: Date): Promise<string> {
  const kid = Buffer.from(random(8)).toString('hex');
  await insertDescriptorKey(db, { kid, key_enc: secrets.seal(Buffer.from(random(32)).toString('base64')), created_at: now.getTime(), retired_at: null });
  return kid;
}

function openKey(secrets: SecretBox, row: DescriptorKeyRow): DescriptorKey {
  return { kid: row.kid, secret: Buffer.from(secrets.open(row.key_enc), 'base64') };
}

interface LoadedKeys {
  sealing: DescriptorKey | undefined;
  opening: Map<string, DescriptorKey>;
}

export class DescriptorKeyRing {
  readonly #ring: ReloadedRing<LoadedKeys>;
  readonly #unknownKids = unknownKidMemory();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly secrets: SecretBox,
    private readonly clock: ShiftableClock,
    private readonly feed: InvalidationFeed,
    private readonly random: RandomBytes,
  ) {
    this.#ring = new ReloadedRing(feed, DESCRIPTOR_KEYS_TOPIC, () => this.#load());
  }

  async #load(): Promise<LoadedKeys> {
    const rows = await liveDescriptorKeys(this.db, descriptorKeyCutoff(this.clock.now()));
    const opening = new Map(rows.map((row) => [row.kid, openKey(this.secrets, row)] as const));
    // Rows come newest first: the first unretired one seals.
    const current = rows.find((r) => r.retired_at === null);
    return { sealing: current && opening.get(current.kid), opening };
  }

  /** The key new descriptors are sealed with; the first one is created on first use. */
  async sealingKey(): Promise<DescriptorKey> {
    return this.#ring.getOrCreate(
      (keys) => keys.sealing,
      () => this.#createFirstKey(),
      'descriptor key',
    );
  }

  async #createFirstKey(): Promise<void> {
    await this.feed.transaction(this.db, async (trx, publish) => {
      const live = await liveDescriptorKeys(trx, descriptorKeyCutoff(this.clock.now()));
      if (live.some((r) => r.retired_at === null)) return;
      await publish(DESCRIPTOR_KEYS_TOPIC, await createDescriptorKey(trx, this.secrets, this.random, this.clock.now()));
    });
  }

  /** The key with this kid, if it still opens descriptors. A kid another process just created is looked up again. */
  async openingKey(kid: string): Promise<DescriptorKey | undefined> {
    const found = (await this.#ring.get()).opening.get(kid);
    if (found || !KEY_ID_PATTERN.test(kid) || this.#unknownKids.has(kid)) return found;
    this.#unknownKids.set(kid, true);
    this.#ring.forget();
    return (await this.#ring.get()).opening.get(kid);
  }

  /** `quipu keys rotate --descriptors`: a new key seals from now on; every process reloads its ring. */
  async rotate(): Promise<DescriptorRotation> {
    return this.feed.transaction(this.db, async (trx, publish) => {
      const now = this.clock.now();
      const retired = await retireDescriptorKeys(trx, now.getTime());
      const kid = await createDescriptorKey(trx, this.secrets, this.random, now);
      const deleted = await deleteDescriptorKeysRetiredBefore(trx, descriptorKeyCutoff(now));
      await publish(DESCRIPTOR_KEYS_TOPIC, kid);
      return { kid, retired, deleted };
    });
  }

  /**
   * What keeps this ring from working, one phrase each: a key that does not open with the secret
   * box (another QUIPU_ENCRYPTION_KEY), or operations not yet expired sealed with a key the ring no
   * longer holds. `quipu serve` refuses to start on any (`quipu worker` opens no descriptor).
   */
  async problems(): Promise<string[]> {
    const now = this.clock.now();
    const rows = await liveDescriptorKeys(this.db, descriptorKeyCutoff(now));
    const unopenable = rows.filter((row) => {
      try {
        return openKey(this.secrets, row).secret.length !== 32;
      } catch {
        return true;
      }
    });
    const usable = rows.filter((row) => !unopenable.includes(row)).map((row) => row.kid);
    const missing = await keysOfOpenOperationsOutside(this.db, now.getTime(), usable);
    const problems: string[] = [];
    if (unopenable.length > 0) problems.push(`descriptor key ${unopenable.map((r) => r.kid).join(', ')} cannot be opened with this QUIPU_ENCRYPTION_KEY`);
    const lost = missing.filter((kid) => !unopenable.some((r) => r.kid === kid));
    if (lost.length > 0) problems.push(`descriptor key ${lost.join(', ')} of operations that have not expired is missing from the key ring`);
    return problems;
  }
}

export interface DescriptorRotation {
  kid: string;
  retired: string[];
  deleted: number;
}
