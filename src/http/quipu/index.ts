// Quipu's own extensions to the provider's interface, under /quipu/v1: authenticated and shaped
// like the v3 API (same credentials, same error bodies), but not part of the contract.
import type { FastifyInstance } from 'fastify';
import { errorHandler, V3_STATUS } from '../errors.js';
import { requireMerchant } from '../plugins/auth.js';
import { emailRoutes } from './emails.js';
import { eventRoutes } from './events.js';
import { notificationRoutes } from './notifications.js';
import { operationRoutes } from './operations.js';
import { paymentListRoutes } from './payments.js';

export async function quipuApi(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(errorHandler(V3_STATUS));
  app.addHook('onRequest', requireMerchant);
  await app.register(notificationRoutes);
  await app.register(emailRoutes);
  await app.register(eventRoutes);
  await app.register(operationRoutes);
  await app.register(paymentListRoutes);
}
