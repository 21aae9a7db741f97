// What every use case receives: the database (or the request's transaction), the clock,
// randomness, configuration, the shared caches, the banks and the outbox. Nothing here knows about HTTP.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { BankDirectory } from '../bank/bank-directory.js';
import type { Config } from '../config.js';
import type { Outbox } from '../delivery/outbox.js';
import type { RandomBytes } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { DB } from '../store/schema.js';
import type { Clock, ShiftableClock } from '../runtime/clock.js';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';
import { keptOrMade } from '../runtime/kept.js';
import type { SecretBox } from '../runtime/secret-box.js';
import type { DescriptorKeyRing } from './descriptor-keys.js';
import type { MerchantDirectory } from './merchant-directory.js';
import type { RequestRecords } from './request-records.js';

export interface AppContext {
  config: Config;
  db: Kysely<DB>;
  /**
   * The clock of the records this context acts on: an account's (forAccount) once a use case knows
   * whose records they are, else the installation's.
   */
  clock: Clock;
  /** The installation's clock, and every account's own (developer mode). */
  clocks: ShiftableClock;
  random: RandomBytes;
  log: Logger;
  secrets: SecretBox;
  feed: InvalidationFeed;
  merchants: MerchantDirectory;
  /** Where every message Quipu sends is written, in the transaction of the change that causes it. */
  outbox: Outbox;
  /** The banks this process drives (payers' transfers, mandates and debits, credits). */
  banks: BankDirectory;
  /** The keys that seal and open operation descriptors. */
  descriptorKeys: DescriptorKeyRing;
  /** Where each API request's record goes, and where the dashboard and `quipu listen` read it (REQUEST_LOG_STORE). */
  requestRecords: RequestRecords;
  /** OAuth access tokens: the account a token acts for (set up by the authorization server). */
  bearer?: BearerAuthentication;
}

export interface BearerAuthentication {
  /** The account, once the token is checked in full (or found checked before); undefined for any token that fails. */
  verify(token: string): Promise<Merchant | undefined>;
  /** The account at once when everything about the token is cached; undefined says only "not cached". */
  cached(token: string): Merchant | undefined;
}

/** Scopes kept per context, at most this many accounts' each: beyond, they are made again. */
const SCOPES_KEPT = 10_000;
const scopes = new WeakMap<AppContext, Map<number, AppContext>>();

/**
 * The account's scope of a context: the same context dating the account's records on that
 * account's clock. Made once per account and kept, so a request authenticated as an account costs
 * two map lookups, not a copy of the context. A scope is a flat copy, of the same shape as every
 * other context (a context read through a prototype made the property reads of every use case
 * polymorphic, and GETs 5% slower): a context's members are set before it serves, never after.
 */
export function forAccount(ctx: AppContext, receiverId: number): AppContext {
  if (ctx.clock.account === receiverId) return ctx;
  let kept = scopes.get(ctx);
  if (!kept) scopes.set(ctx, (kept = new Map()));
  return keptOrMade(kept, receiverId, SCOPES_KEPT, () => ({ ...ctx, clock: ctx.clocks.of(receiverId) }));
}

/** The same context writing through `db` (a transaction). */
export function withDb(ctx: AppContext, db: Kysely<DB>): AppContext {
  return { ...ctx, db };
}
