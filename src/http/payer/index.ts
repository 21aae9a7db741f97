// The payment cycle's HTTP surfaces: the payer's pages (HTML, in their own scope with cookies,
// CSRF and security headers) and the JSON endpoints around them (operator credits, the merchant's
// mark-paid extension, the DemoBank sandbox).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { cycleApiRoutes } from '../operator/index.js';
import { pageAccount } from '../page-account.js';
import { payerPageScope } from './page-scope.js';
import { payerRoutes } from './routes.js';

async function payerPages(app: FastifyInstance, { config }: { config: Config }): Promise<void> {
  await payerPageScope(app, { config, path: '/payment', words: (m) => m });
  app.addHook(
    'preHandler',
    pageAccount((request) => (request.routeOptions.url?.startsWith('/payment/bank/') ? 'attempt' : 'payment')),
  );
  payerRoutes(app);
}

export async function paymentCycleRoutes(app: FastifyInstance, options: { config: Config }): Promise<void> {
  await app.register(payerPages, options);
  await app.register(cycleApiRoutes, options);
}
