// The sandbox, only where the operator left SANDBOX on: accounts on demand (accounts.ts), each
// account's developer clock and faults on demand (faults.ts), DemoBank's decisions
// about automatic payments, the content of descriptors and runs of DemoBank's scenarios for
// developer-mode accounts (merchant credentials, v3's error bodies), and DemoBank's scenario table
// for anyone.
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { errorHandler, V3_STATUS } from '../errors.js';
import { requireMerchant } from '../plugins/auth.js';
import { sandboxAccountRoutes } from './accounts.js';
import { clockRoutes } from './clock.js';
import { demoBankDecisionRoutes } from './demobank-decisions.js';
import { descriptorSandboxRoutes } from './descriptors.js';
import { faultRoutes } from './faults.js';
import { scenarioRoutes, scenarioRunRoutes } from './scenarios.js';

export async function sandboxApi(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(errorHandler(V3_STATUS));
  await app.register(async (developer) => {
    developer.addHook('onRequest', async (request, reply) => {
      await requireMerchant(request, reply);
      if (!request.merchant!.developer) throw new DomainError('forbidden', 'The sandbox is only for developer-mode accounts');
    });
    await developer.register(clockRoutes);
    await developer.register(faultRoutes);
    await developer.register(demoBankDecisionRoutes);
    await developer.register(descriptorSandboxRoutes);
    await developer.register(scenarioRunRoutes);
  });
  await app.register(scenarioRoutes);
  await app.register(sandboxAccountRoutes);
}
