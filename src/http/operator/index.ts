// The payment cycle's JSON endpoints, each surface in its own scope with its own credentials: the
// operator API (OPERATOR_TOKEN), the merchant's mark-paid extension and the DemoBank sandbox
// (merchant API keys, like v3, with v3's error bodies).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { errorHandler, V3_STATUS } from '../errors.js';
import { requireMerchant } from '../plugins/auth.js';
import { logOperatorCall, requireOperator } from './auth.js';
import { operatorCreditRoutes } from './credits.js';
import { demoBankSandboxRoutes, markPaidRoutes } from './merchant-routes.js';

export async function cycleApiRoutes(app: FastifyInstance, options: { config: Config }): Promise<void> {
  await app.register(async (operator) => {
    operator.setErrorHandler(errorHandler(V3_STATUS));
    operator.addHook('onRequest', requireOperator);
    operator.addHook('onResponse', logOperatorCall);
    await operator.register(operatorCreditRoutes);
  });
  await app.register(async (merchant) => {
    merchant.setErrorHandler(errorHandler(V3_STATUS));
    merchant.addHook('onRequest', requireMerchant);
    await merchant.register(markPaidRoutes);
    if (options.config.sandbox) await merchant.register(demoBankSandboxRoutes);
  });
}
