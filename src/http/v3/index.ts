// The payment API host's JSON surface, the instant payment API v3, the automatic payment API v1 and
// the operation descriptor API v1:
// every operation authenticated, bodies normalised, errors in the contract's shape.
import type { FastifyInstance } from 'fastify';
import { normalizeEmptyFields } from '../body-normalizer.js';
import { errorHandler, V3_STATUS } from '../errors.js';
import { authenticate } from '../plugins/auth.js';
import { ErrorBody } from '../schemas.js';
import { automaticPaymentRoutes } from '../v1/automatic-payments.js';
import { descriptorRoutes } from '../v1/descriptors.js';
import { v3CatalogueRoutes } from './catalogue.js';
import { v3PaymentRoutes } from './payments.js';
import { v3ReceiverRoutes } from './receivers.js';

export async function v3Api(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(errorHandler(V3_STATUS));
  // Every operation's error responses refer to it (v3Responses).
  app.addSchema(ErrorBody);
  app.addHook('onRequest', authenticate);
  // Only the POST operations read a body, so only their routes get the hook: the GET and DELETE
  // operations are spared a step that would have nothing to do.
  app.addHook('onRoute', (route) => {
    if (route.method === 'POST') route.preValidation = [normalizeEmptyFields, ...[route.preValidation ?? []].flat()];
  });
  await app.register(v3PaymentRoutes);
  await app.register(v3CatalogueRoutes);
  await app.register(v3ReceiverRoutes);
  await app.register(automaticPaymentRoutes);
  await app.register(descriptorRoutes);
}
