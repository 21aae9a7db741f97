// Keeps a process's record of the accounts' own clocks in step with the database: all of them at
// start, then each one again when the invalidation feed says it moved (a move or reset in any process).
import type { Logger } from 'pino';
import type { Kysely } from 'kysely';
import { ownAccountClocks, readAccountClock } from '../store/account-clocks.js';
import type { DB } from '../store/schema.js';
import type { ShiftableClock } from './clock.js';
import type { InvalidationFeed } from './invalidation-feed.js';

export const ACCOUNT_CLOCK_TOPIC = 'account-clock';

export async function followAccountClocks(db: Kysely<DB>, clock: ShiftableClock, feed: InvalidationFeed, log: Logger): Promise<void> {
  for (const own of await ownAccountClocks(db)) clock.setAccount(own.receiverId, own);
  feed.on(ACCOUNT_CLOCK_TOPIC, (item) => {
    const receiverId = Number(item);
    readAccountClock(db, receiverId).then(
      (stored) => clock.setAccount(receiverId, stored ?? { offsetMs: null, version: Number.MAX_SAFE_INTEGER }),
      (error) => log.error({ err: error, receiverId }, "reading an account's clock failed"),
    );
  });
}
