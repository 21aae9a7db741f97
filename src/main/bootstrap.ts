// Assembles a process's context: configuration, database (migrated), clock, caches, secrets and
// where the request log goes (request-records.ts).
// The server, the workers and the CLI all start here: this folder is the one that knows every
// other, so that none of them needs to know what sits above it.
import type { Logger } from 'pino';
import type { AppContext } from '../app/context.js';
import { DescriptorKeyRing } from '../app/descriptor-keys.js';
import { MerchantDirectory } from '../app/merchant-directory.js';
import type { Config } from '../config.js';
import { Outbox } from '../delivery/outbox.js';
import { openDatabase } from '../store/database.js';
import { bankDirectory } from './bank-connectors.js';
import { requestRecordsFor } from './request-records.js';
import { migrateToLatest } from '../store/migrate.js';
import { followAccountClocks } from '../runtime/account-clock-feed.js';
import { ShiftableClock } from '../runtime/clock.js';
import { InvalidationFeed } from '../runtime/invalidation-feed.js';
import { createLogger } from '../runtime/logger.js';
import { pooledRandom } from '../runtime/random-pool.js';
import { SecretBox, loadEncryptionKey, parsePreviousKeys } from '../runtime/secret-box.js';
import { wallClockMs } from '../runtime/wall-clock.js';

export interface Runtime {
  ctx: AppContext;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** A server or worker, as opposed to a one-shot command: worth a thread for SQLite checkpoints. */
  longRunning?: boolean;
}

export async function startRuntime(config: Config, log: Logger = createLogger(config.logLevel), options: RuntimeOptions = {}): Promise<Runtime> {
  const database = openDatabase(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
    poolSize: config.dbPoolSize,
    maxLifetimeSeconds: config.dbConnectionMaxLifetimeSeconds,
    credentialsFile: config.databaseUrlFile,
    walCheckpointer: options.longRunning,
    log,
  });
  try {
    const { applied } = await migrateToLatest(database.db);
    if (applied.length > 0) log.info({ applied }, 'database migrated');
    const { key, generatedAt } = loadEncryptionKey(config.encryptionKey, config.dataDir);
    if (generatedAt) log.warn({ file: generatedAt }, 'generated an encryption key for receiver secrets; set QUIPU_ENCRYPTION_KEY in production');
    const secrets = new SecretBox(key, parsePreviousKeys(config.previousEncryptionKeys));
    const clock = new ShiftableClock();
    const feed = new InvalidationFeed(database.db, clock, config.invalidationPollMs, log);
    await feed.poll();
    await followAccountClocks(database.db, clock, feed, log);
    feed.start();
    const random = pooledRandom();
    const ctx: AppContext = {
      config,
      db: database.db,
      clock,
      clocks: clock,
      random,
      log,
      secrets,
      feed,
      merchants: new MerchantDirectory(database.db, secrets, feed, config.credentialCacheSize, () => wallClockMs(clock)),
      outbox: new Outbox(clock, random),
      banks: bankDirectory({ config, db: database.db }),
      descriptorKeys: new DescriptorKeyRing(database.db, secrets, clock, feed, random),
      requestRecords: requestRecordsFor(config, database.db, log),
    };
    return {
      ctx,
      close: async () => {
        await feed.stop();
        // Its last rows first: the file's are checked against the accounts of the database.
        await ctx.requestRecords.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
