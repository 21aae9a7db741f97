// DemoBank's portal (only where SANDBOX is on): the test bank's pages where a payer signs in and
// revokes the mandates they signed, in a payer page scope of its own (cookies scoped to the portal,
// forms leading only here, fault pages, out of the OpenAPI document).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { payerPageScope } from '../payer/page-scope.js';
import { portalRoutes } from './routes.js';
import { PORTAL_PATH } from './session.js';

export async function demoBankPortal(app: FastifyInstance, { config }: { config: Config }): Promise<void> {
  await payerPageScope(app, { config, path: PORTAL_PATH, words: (m) => m.demoBankPortal });
  portalRoutes(app);
}
