// A real Quipu server: its own database, listening on a random port, reached over HTTP. Accounts are
// opened through the same use case the CLI uses. Free of vitest, so scripts start one too
// (scripts/dashboard-screenshot.ts); a test file takes one with useTestServer (server.ts).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/app/context.js';
import type { BankConnector } from '../../src/bank/connector.js';
import { createMerchant, type MerchantCredentials, type NewMerchant } from '../../src/app/create-merchant.js';
import { type Config, loadConfig } from '../../src/config.js';
import { DEMO_BANK_ID } from '../../src/domain/banks.js';
import type { Merchant } from '../../src/domain/merchant.js';
import { buildServer } from '../../src/http/server.js';
import { startRuntime, type Runtime } from '../../src/main/bootstrap.js';
import { createLogger } from '../../src/runtime/logger.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { testHashCost } from './quipu-processes.js';

/**
 * A password a person chose (it passes domain/password-policy.ts): a user added with it opens the
 * dashboard at once, without the generated password's replacement first.
 */
export const CHOSEN_PASSWORD = 'Larch-Quartz-Otter-8841';

export interface TestAccount extends MerchantCredentials {
  merchant: Merchant;
}

export interface TestServer {
  baseUrl: string;
  ctx: AppContext;
  app: FastifyInstance;
  database: TestDatabase;
  config: Config;
  /** The server's DemoBank, for a test to make it misbehave (vi.spyOn on its methods). */
  demoBank: BankConnector;
  /** Opens an account (developer mode unless said otherwise). */
  account(input?: Partial<NewMerchant>): Promise<TestAccount>;
  close(): Promise<void>;
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const database = await createTestDatabase(undefined, undefined, { migrated: true });
  const base = loadConfig({
    DATABASE_URL: database.url,
    DATA_DIR: database.dataDir,
    PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    INVALIDATION_POLL_MS: '100',
    ...testHashCost(env),
    ...env,
  });
  const runtime: Runtime = await startRuntime(base, createLogger(base.logLevel, 2), { longRunning: true });
  const app = await buildServer(runtime.ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  // Payment URLs are built from the public base URL, which is only known once the port is (unless given).
  const config: Config = { ...base, port, publicBaseUrl: env.PUBLIC_BASE_URL ? base.publicBaseUrl : baseUrl };
  runtime.ctx.config = config;
  return {
    baseUrl,
    ctx: runtime.ctx,
    app,
    database,
    config,
    demoBank: runtime.ctx.banks.connectorFor(DEMO_BANK_ID)!,
    account: async (input = {}) => {
      const { merchant, credentials } = await createMerchant(runtime.ctx, { name: 'Test store', developer: true, users: ['owner@example.com'], ...input });
      return { ...credentials, merchant };
    },
    close: async () => {
      await app.close();
      await runtime.close();
      await database.drop();
    },
  };
}
