// A key ring held per process, of keys kept sealed in one table: the newest unretired key is the
// one in use (it signs tokens, or seals descriptors); keys retired by a rotation keep opening what
// they made for one lifetime of it, and are deleted after. A rotation is published on the ring's
// topic, and every process loads its ring again. The OAuth signing keys and the descriptor keys are
// both rings of this kind.
import type { Kysely } from 'kysely';
import type { Clock } from '../runtime/clock.js';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';
import type { KeyTable } from '../store/sealed-keys.js';
import type { DB } from '../store/schema.js';
import { ReloadedRing, unknownKidMemory } from './reloaded-ring.js';

interface StoredKey {
  kid: string;
  retired_at: number | null;
}

/** What sets one ring apart: where its keys are, how long they work, how one is made and opened. */
export interface KeyKind<Row extends StoredKey, Current, Opening> {
  /** Names the key in errors. */
  what: string;
  topic: string;
  table: KeyTable<Row>;
  /** How long what a key made stays valid: a key retired longer ago opens nothing. */
  lifetimeMs: number;
  /** The form of every kid: anything else is not looked up. */
  kidPattern: RegExp;
  /** A new key's row, its secret sealed. */
  create(now: Date): Promise<Row>;
  /** The key in use, opened to make with. */
  openCurrent(row: Row): Promise<Current>;
  /** A live key, opened to open (or verify) with. */
  open(row: Row): Promise<Opening>;
}

export interface Rotation {
  kid: string;
  retired: string[];
  deleted: number;
}

/** Keys retired before this instant open nothing any more: everything they made has expired. */
export function keyCutoff(kind: { lifetimeMs: number }, now: Date): number {
  return now.getTime() - kind.lifetimeMs;
}

/** Creates a key and stores it sealed; answers its kid. */
export async function createKey<Row extends StoredKey>(db: Kysely<DB>, kind: KeyKind<Row, unknown, unknown>, now: Date): Promise<string> {
  const row = await kind.create(now);
  await kind.table.insert(db, row);
  return row.kid;
}

/** A new key is in use from now on; the previous ones keep working until what they made expires, and keys past that are deleted. */
export async function rotateKeyRing<Row extends StoredKey>(
  db: Kysely<DB>,
  feed: InvalidationFeed,
  clock: Clock,
  kind: KeyKind<Row, unknown, unknown>,
): Promise<Rotation> {
  return feed.transaction(db, async (trx, publish) => {
    const now = clock.now();
    const retired = await kind.table.retire(trx, now.getTime());
    const kid = await createKey(trx, kind, now);
    const deleted = await kind.table.deleteRetiredBefore(trx, keyCutoff(kind, now));
    await publish(kind.topic, kid);
    return { kid, retired, deleted };
  });
}

interface LoadedKeys<Row, Current, Opening> {
  /** Newest first. */
  rows: Row[];
  current: Current | undefined;
  opening: Map<string, Opening>;
}

export class SealedKeyRing<Row extends StoredKey, Current, Opening> {
  readonly #ring: ReloadedRing<LoadedKeys<Row, Current, Opening>>;
  readonly #unknownKids = unknownKidMemory();

  constructor(
    protected readonly db: Kysely<DB>,
    protected readonly clock: Clock,
    private readonly feed: InvalidationFeed,
    protected readonly kind: KeyKind<Row, Current, Opening>,
  ) {
    this.#ring = new ReloadedRing(feed, kind.topic, () => this.#load());
  }

  protected cutoff(): number {
    return keyCutoff(this.kind, this.clock.now());
  }

  async #load(): Promise<LoadedKeys<Row, Current, Opening>> {
    const rows = await this.kind.table.live(this.db, this.cutoff());
    const opening = new Map(await Promise.all(rows.map(async (row) => [row.kid, await this.kind.open(row)] as const)));
    // Rows come newest first: the first unretired one is in use.
    const current = rows.find((r) => r.retired_at === null);
    return { rows, current: current && (await this.kind.openCurrent(current)), opening };
  }

  /** The live keys' rows, newest first. */
  protected async rows(): Promise<Row[]> {
    return (await this.#ring.get()).rows;
  }

  /** The key in use; the first one is created on first use. */
  protected async current(): Promise<Current> {
    return this.#ring.getOrCreate(
      (keys) => keys.current,
      () => this.#createFirstKey(),
      this.kind.what,
    );
  }

  async #createFirstKey(): Promise<void> {
    await this.feed.transaction(this.db, async (trx, publish) => {
      const live = await this.kind.table.live(trx, this.cutoff());
      if (live.some((r) => r.retired_at === null)) return;
      await publish(this.kind.topic, await createKey(trx, this.kind, this.clock.now()));
    });
  }

  /** The key with this kid, if it still works. A kid another process just created is looked up again. */
  protected async opening(kid: string): Promise<Opening | undefined> {
    const found = (await this.#ring.get()).opening.get(kid);
    if (found || !this.kind.kidPattern.test(kid) || this.#unknownKids.has(kid)) return found;
    // One indexed read, and the loaded keys are replaced only when the kid is really there.
    if (!(await this.kind.table.isLive(this.db, kid, this.cutoff()))) {
      this.#unknownKids.set(kid, true);
      return undefined;
    }
    this.#ring.forget();
    return (await this.#ring.get()).opening.get(kid);
  }

  /** `quipu keys rotate`: a new key is in use from now on; every process reloads its ring. */
  rotate(): Promise<Rotation> {
    return rotateKeyRing(this.db, this.feed, this.clock, this.kind);
  }
}
