// The descriptor key ring, cached per process: the newest unretired key seals new descriptors;
// keys retired by `quipu keys rotate --descriptors` keep opening descriptors until the last one
// they sealed has expired, and are deleted after. Keys are kept sealed with the secret box
// (QUIPU_ENCRYPTION_KEY), like receiver secrets.
import type { Kysely } from 'kysely';
import type { RandomBytes } from '../domain/ids.js';
import { type DescriptorKey, KEY_ID_PATTERN, OPERATION_LIFETIME_MS } from '../domain/operation-descriptor.js';
import type { Clock } from '../runtime/clock.js';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';
import type { SecretBox } from '../runtime/secret-box.js';
import { keysOfOpenOperationsOutside } from '../store/operations.js';
import { DESCRIPTOR_KEYS } from '../store/sealed-keys.js';
import type { DB, DescriptorKeyRow } from '../store/schema.js';
import { type KeyKind, SealedKeyRing } from './key-ring.js';

/** Descriptor keys: 32 random bytes (AES-256-GCM), each kid 16 random hex digits. */
function descriptorKeys(secrets: SecretBox, random: RandomBytes): KeyKind<DescriptorKeyRow, DescriptorKey, DescriptorKey> {
  const open = async (row: DescriptorKeyRow): Promise<DescriptorKey> => ({ kid: row.kid, secret: Buffer.from(secrets.open(row.key_enc), 'base64') });
  return {
    what: 'descriptor key',
    topic: 'descriptor-keys',
    table: DESCRIPTOR_KEYS,
    lifetimeMs: OPERATION_LIFETIME_MS,
    kidPattern: KEY_ID_PATTERN,
    create: async (now) => ({
      kid: Buffer.from(random(8)).toString('hex'),
      key_enc: secrets.seal(Buffer.from(random(32)).toString('base64')),
      created_at: now.getTime(),
      retired_at: null,
    }),
    openCurrent: open,
    open,
  };
}

export class DescriptorKeyRing extends SealedKeyRing<DescriptorKeyRow, DescriptorKey, DescriptorKey> {
  constructor(db: Kysely<DB>, secrets: SecretBox, clock: Clock, feed: InvalidationFeed, random: RandomBytes) {
    super(db, clock, feed, descriptorKeys(secrets, random));
  }

  /** The key new descriptors are sealed with; the first one is created on first use. */
  sealingKey(): Promise<DescriptorKey> {
    return this.current();
  }

  /** The key with this kid, if it still opens descriptors. */
  openingKey(kid: string): Promise<DescriptorKey | undefined> {
    return this.opening(kid);
  }

  /**
   * What keeps this ring from working, one phrase each: a key that does not open with the secret
   * box (another QUIPU_ENCRYPTION_KEY), or operations not yet expired sealed with a key the ring no
   * longer holds. `quipu serve` refuses to start on any (`quipu worker` opens no descriptor).
   */
  async problems(): Promise<string[]> {
    const rows = await this.kind.table.live(this.db, this.cutoff());
    const opens = await Promise.all(
      rows.map((row) =>
        this.kind.open(row).then(
          (key) => key.secret.length === 32,
          () => false,
        ),
      ),
    );
    const unopenable = rows.filter((_, i) => !opens[i]).map((row) => row.kid);
    const usable = rows.filter((_, i) => opens[i]).map((row) => row.kid);
    const missing = await keysOfOpenOperationsOutside(this.db, this.clock.now().getTime(), usable);
    const problems: string[] = [];
    if (unopenable.length > 0) problems.push(`descriptor key ${unopenable.join(', ')} cannot be opened with this QUIPU_ENCRYPTION_KEY`);
    const lost = missing.filter((kid) => !unopenable.includes(kid));
    if (lost.length > 0) problems.push(`descriptor key ${lost.join(', ')} of operations that have not expired is missing from the key ring`);
    return problems;
  }
}
