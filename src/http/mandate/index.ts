// The mandate signing pages (the subscription's redirect_url), in their own scope with the payer
// pages' defences under /pac-manager.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { pageAccount } from '../page-account.js';
import { payerPageScope } from '../payer/page-scope.js';
import { MANDATE_PAGES_PATH, mandateRoutes } from './routes.js';

export async function mandatePages(app: FastifyInstance, { config }: { config: Config }): Promise<void> {
  await payerPageScope(app, { config, path: MANDATE_PAGES_PATH, words: (m) => m.mandate });
  app.addHook(
    'preHandler',
    pageAccount((request) => (request.routeOptions.url?.startsWith(`${MANDATE_PAGES_PATH}/signing/`) ? 'signing' : 'subscription')),
  );
  mandateRoutes(app);
}
