// The operation pages (Quipu running descriptors as the provider's SDK does), in their own scope
// with the payer pages' defences under /operation.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { UUID_PATTERN } from '../../domain/ids.js';
import { pageAccount } from '../page-account.js';
import { payerPageScope } from '../payer/page-scope.js';
import { OPERATION_PAGES_PATH } from './pages.js';
import { operationRoutes } from './routes.js';

export async function operationPages(app: FastifyInstance, { config }: { config: Config }): Promise<void> {
  await payerPageScope(app, { config, path: OPERATION_PAGES_PATH, words: (m) => m.operation });
  // Routes by operation id; the page a descriptor opens (`:ref`) finds its operation first, and its
  // use case acts for the operation's account.
  app.addHook(
    'preHandler',
    pageAccount((request) => (UUID_PATTERN.test((request.params as { id?: string }).id ?? '') ? 'operation' : undefined)),
  );
  operationRoutes(app);
}
