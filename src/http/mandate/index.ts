// The mandate signing pages (the subscription's redirect_url), in their own scope with the payer
// pages' defences under /pac-manager.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { payerPageScope } from '../payer/page-scope.js';
import { MANDATE_PAGES_PATH, mandateRoutes } from './routes.js';

export async function mandatePages(app: FastifyInstance, { config }: { config: Config }): Promise<void> {
  await payerPageScope(app, { config, path: MANDATE_PAGES_PATH, words: (m) => m.mandate });
  mandateRoutes(app);
}
