// What every use case receives: the database (or the request's transaction), the clock,
// randomness, configuration and the shared caches. Nothing here knows about HTTP.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RandomBytes } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { Dialect } from '../store/database.js';
import type { DB } from '../store/schema.js';
import type { ShiftableClock } from '../runtime/clock.js';
import type { InvalidationFeed } from '../runtime/invalidation-feed.js';
import type { SecretBox } from '../runtime/secret-box.js';
import type { MerchantDirectory } from './merchant-directory.js';

export interface AppContext {
  config: Config;
  db: Kysely<DB>;
  dialect: Dialect;
  clock: ShiftableClock;
  random: RandomBytes;
  log: Logger;
  secrets: SecretBox;
  feed: InvalidationFeed;
  merchants: MerchantDirectory;
  /** Verifies an OAuth access token and returns the account it acts for (set up by the authorization server). */
  verifyBearer?: (token: string) => Promise<Merchant | undefined>;
}

/** The same context writing through `db` (a transaction). */
export function withDb(ctx: AppContext, db: Kysely<DB>): AppContext {
  return { ...ctx, db };
}
