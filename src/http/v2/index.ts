// The instant payment API v2 surface, under /2.0 and /api/2.0: the v3 use cases behind the v2 wire
// format (form bodies, signed requests, v2 error statuses). See docs/v2.md.
import type { FastifyInstance } from 'fastify';
import { normalizeEmptyFields } from '../body-normalizer.js';
import { errorHandler, V2_STATUS, V2_UNEXPECTED_STATUS } from '../errors.js';
import { ErrorBody } from '../schemas.js';
import { v2CatalogueRoutes } from './catalogue.js';
import { plainJavaAmounts, requireForm, singleValuedFields, v2BodyParsers } from './form-body.js';
import { v2PaymentRoutes } from './payments.js';
import { v2ReceiverRoutes } from './receivers.js';
import type { V2RouteOptions } from './route-options.js';
import { v2Auth } from './signature-auth.js';

const PREFIXES: readonly (V2RouteOptions & { prefix: string })[] = [
  { prefix: '/2.0', alias: false },
  { prefix: '/api/2.0', alias: true },
];

/** How the document says v2 operations authenticate: an API key, the v2 signature, or a bearer token. */
const V2_SECURITY: Record<string, string[]>[] = [{ 'Api-Key': [] }, { 'V2-Signature': [] }, { Bearer: [] }];

export async function v2Api(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(errorHandler(V2_STATUS, V2_UNEXPECTED_STATUS));
  // Every operation's error responses refer to it (v2Responses).
  app.addSchema(ErrorBody);
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, security: V2_SECURITY };
  });
  v2BodyParsers(app);
  // Hooks run in the order they are added. The body's type is checked first (it is no secret), then
  // the signature, so a request that is not signed right learns nothing about its fields.
  app.addHook('preValidation', requireForm);
  v2Auth(app);
  app.addHook('preValidation', singleValuedFields);
  app.addHook('preValidation', plainJavaAmounts);
  app.addHook('preValidation', normalizeEmptyFields);
  for (const options of PREFIXES) {
    await app.register(v2PaymentRoutes, options);
    await app.register(v2CatalogueRoutes, options);
    await app.register(v2ReceiverRoutes, options);
  }
}
