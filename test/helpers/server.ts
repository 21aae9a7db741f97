// A real Quipu server for a test file (test-server.ts), started before its tests and closed after them.
import { afterAll, beforeAll } from 'vitest';
import type { NewMerchant } from '../../src/app/create-merchant.js';
import { startTestServer, type TestAccount, type TestServer } from './test-server.js';

export { CHOSEN_PASSWORD, startTestServer, type TestAccount, type TestServer } from './test-server.js';

/**
 * A real server for the tests of this file (or of the describe block it is called in), with an
 * account opened on it: started before them, closed after them. Its properties are set in the
 * beforeAll hook it registers, so they are read in later hooks and in tests.
 */
export function useTestServer(
  env: Record<string, string> = {},
  input: Partial<NewMerchant> = {},
): { readonly server: TestServer; readonly account: TestAccount } {
  const started: { server?: TestServer; account?: TestAccount } = {};
  beforeAll(async () => {
    started.server = await startTestServer(env);
    started.account = await started.server.account(input);
  });
  afterAll(async () => started.server?.close());
  return started as { server: TestServer; account: TestAccount };
}

/**
 * Starts servers with the environment a test gives each, as its tests need them, and closes them
 * all after the tests of this file.
 */
export function serversClosedAfterAll(): (env: Record<string, string>) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });
  return async (env) => {
    const server = await startTestServer(env);
    servers.push(server);
    return server;
  };
}
