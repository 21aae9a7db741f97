// The operation pages (Quipu running descriptors as the provider's SDK does), in their own scope
// with the payer pages' defences under /operation.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { payerPageScope } from '../payer/page-scope.js';
import { OPERATION_PAGES_PATH } from './pages.js';
import { operationRoutes } from './routes.js';

export async function operationPages(app: FastifyInstance, { config }: { config: Config }): Promise<void> {
  await payerPageScope(app, { config, path: OPERATION_PAGES_PATH, words: (m) => m.operation });
  operationRoutes(app);
}
