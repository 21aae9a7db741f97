// Builds the HTTP server: shared plugins, the OpenAPI document (/openapi.json, browsable at /docs),
// health and metrics, and each API surface in its own encapsulated scope.
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, LogController } from 'fastify';
import { bearerAuthentication } from '../app/bearer-verifier.js';
import type { AppContext } from '../app/context.js';
import { durable } from '../store/database.js';
import { apiReference } from './api-reference.js';
import { apiFaultsOn } from './api-faults.js';
import { assetRoutes } from './assets.js';
import { dashboard } from './dashboard/index.js';
import { separateDashboardOrigin } from './dashboard-origin.js';
import { demoBankPortal } from './demobank-portal/index.js';
import { errorHandler, notFoundHandler, V3_STATUS } from './errors.js';
import { capConnectionsPerAddress } from './connection-cap.js';
import { healthRoutes, Readiness } from './health.js';
import { idempotencyPlugin } from './plugins/idempotency.js';
import { auditApiCallsOn } from './audit-hook.js';
import { IGNORED_FIELDS_HEADER, ignoreUnknownFieldsOn, LIKELY_TYPOS_HEADER } from './ignored-fields.js';
import { jsonBodyParser } from './json-body.js';
import { lingerBeforeClosing } from './lingering-close.js';
import { optionalBodies } from './openapi-optional-body.js';
import { mandatePages } from './mandate/index.js';
import { operationPages } from './operation/index.js';
import { refuseNulOn } from './nul-refusal.js';
import { paymentCycleRoutes } from './payer/index.js';
import { oauthApi } from './oauth/index.js';
import { metricsPlugin } from './plugins/metrics.js';
import { apiRateLimit } from './plugins/rate-limit.js';
import { quipuApi } from './quipu/index.js';
import './request-context.js';
import { recordRequests } from './request-log-hook.js';
import { requestLogger } from './request-logger.js';
import { sandboxApi } from './sandbox/index.js';
import { lazySerializers } from './serialization.js';
import { transportSecurity } from './transport-security.js';
import { validatorCompiler } from './validation.js';
import { v2Api } from './v2/index.js';
import { v3Api } from './v3/index.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** TRUST_PROXY as Fastify takes it: a hop count trusts the nearest `hops` addresses of the chain. */
const trustedProxies = (setting: string | number | false) => (typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting);

/** The header of /docs: what this reference holds, and how to try it. */
const API_DESCRIPTION = [
  'Self-hostable instant bank-transfer payments. Every API of this installation: the instant payment API v3 (payments, banks, predict,',
  'receivers, merchants) and v2 for older clients; automatic payments (subscriptions and charge intents); operations from descriptors;',
  "OAuth 2.0; Quipu's own APIs (the payments list, events, notifications, emails, operations); the sandbox of developer-mode accounts",
  "(DemoBank's scenarios, the account's clock, faults, snapshots); and the operator API.",
  "\n\n**Try it out** with an API key (Authorize, Api-Key): a first `npm start` prints the demo account's. Its example bodies are",
  "accepted as they stand with that key (the charge intent's names the demo account's ENABLED subscription; the operator API takes",
  "the operator's token instead), given the ids of your own objects in the paths.",
  'Conventions (errors, idempotency, warnings, ignored fields): docs/api-conventions.md in the repository.',
].join(' ');

/** `readiness`: what /readyz says besides the database's state; the caller drains the server through it. */
export async function buildServer(ctx: AppContext, readiness = new Readiness()): Promise<FastifyInstance> {
  // Only a server takes OAuth access tokens: a worker or a one-shot command never loads the verifier.
  ctx.bearer ??= bearerAuthentication(ctx);
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    // One line per request is written by the onResponse hook below, at debug level unless it failed.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: requestLogger,
    schemaController: lazySerializers,
    bodyLimit: ctx.config.bodyLimit,
    trustProxy: trustedProxies(ctx.config.trustProxy),
    // A client that sends its request slowly holds a connection and a file descriptor: bounded,
    // and looked for every second (Node's default look, every 30 s, let one overstay by that much).
    http: { headersTimeout: ctx.config.headersTimeoutMs, connectionsCheckingInterval: 1_000 },
    requestTimeout: ctx.config.requestTimeoutMs,
    keepAliveTimeout: ctx.config.keepAliveTimeoutMs,
    // Path ids longer than the contract's 255 reach validation and get a 400 naming the field; an
    // operation descriptor, a few KB of Base64, is a path parameter of its page (/operation/...).
    routerOptions: { maxParamLength: 16384 },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Closing must not wait for idle keep-alive clients.
    forceCloseConnections: 'idle',
    // A URL the router cannot decode (a broken %-escape) gets the service's error shape too.
    frameworkErrors: (error, _request, reply) => {
      void (reply as FastifyReply).code(400).send({ status: 400, message: `Malformed URL: ${error.message}` });
    },
  });
  capConnectionsPerAddress(app.server, ctx.config.maxConnectionsPerAddress);
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler(V3_STATUS));
  app.setNotFoundHandler(notFoundHandler);

  // No operation takes plain text: it gets a 415 rather than a confusing validation error.
  app.removeContentTypeParser('text/plain');
  const parseJson = jsonBodyParser(app);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => parseJson(request, body as string, done));

  // Unknown members leave the body first: a NUL inside one is ignored with it.
  app.addHook('onRoute', ignoreUnknownFieldsOn);
  app.addHook('onRoute', refuseNulOn);
  app.addHook('onRoute', auditApiCallsOn);
  // Faults on demand of developer-mode accounts (docs/sandbox-faults.md): not even a hook without the sandbox.
  if (ctx.config.sandbox) app.addHook('onRoute', apiFaultsOn);

  app.decorateRequest('ctx', null as unknown as AppContext);
  app.decorateRequest('merchant', null);
  app.decorateRequest('warnings', null);
  // Hooks that run on every request take Fastify's callback form: an async hook costs a promise
  // and a turn of the microtask queue each time, even when it has nothing to wait for.
  app.addHook('onRequest', (request, reply, done) => {
    request.ctx = ctx;
    reply.header('x-request-id', request.id);
    done();
  });
  transportSecurity(app, ctx.config);
  separateDashboardOrigin(app, ctx.config);
  // Nothing is acknowledged before it is durable: an answer waits for the flush of every commit
  // made before it is sent (SQLite; see src/store/wal-sync.ts). Usually there is none to wait for.
  app.addHook('onSend', (request, reply, payload, done) => {
    // The API's answers hold payments, credentials and tokens: no cache keeps them, and no browser
    // reads them as anything but JSON (pages and public documents set their own Cache-Control).
    if (!reply.hasHeader('cache-control') && String(reply.getHeader('content-type') ?? '').startsWith('application/json')) {
      void reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
    }
    // A body refused before it all arrived: its client may still be sending it.
    if (reply.statusCode === 413 && !request.raw.complete) lingerBeforeClosing(request.raw, ctx.config.requestTimeoutMs);
    const flushed = durable(ctx.db);
    if (flushed === undefined) return done(null, payload);
    flushed.then(() => done(null, payload), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const ignored = reply.getHeader(IGNORED_FIELDS_HEADER);
    // Ignored members may be a typo, and accepted values may be doubtful: the developer should see
    // them, so the line is then written at info.
    const level = reply.statusCode >= 500 ? 'error' : ignored === undefined && request.warnings === null ? 'debug' : 'info';
    if (ctx.log.isLevelEnabled(level)) {
      const line = {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: reply.elapsedTime,
        ignored_fields: ignored,
        likely_typos: reply.getHeader(LIKELY_TYPOS_HEADER),
        warnings: request.warnings ?? undefined,
      };
      request.log[level](line, 'request');
    }
    done();
  });
  recordRequests(app, ctx);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Quipu',
        version: '3.0',
        description: API_DESCRIPTION,
      },
      servers: [{ url: ctx.config.publicBaseUrl }],
      components: {
        securitySchemes: {
          'Api-Key': { type: 'apiKey', in: 'header', name: 'x-api-key' },
          Bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          'V2-Signature': {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description:
              'v2 only: `<receiver_id>:<hex HMAC-SHA256>` over the method, the URL as the client saw it and the sorted, encoded parameters, keyed with the receiver secret (docs/v2.md)',
          },
        },
      },
      security: [{ 'Api-Key': [] }, { Bearer: [] }],
    },
    transformObject: (document) => ('openapiObject' in document ? optionalBodies(document.openapiObject) : document.swaggerObject),
  });
  await apiReference(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  metricsPlugin(app, { public: ctx.config.sandbox, ctx });
  apiRateLimit(app, ctx.config.apiRateLimit);
  healthRoutes(app, readiness);
  assetRoutes(app);
  idempotencyPlugin(app);
  await app.register(v3Api);
  await app.register(v2Api);
  await app.register(quipuApi);
  if (ctx.config.sandbox) await app.register(sandboxApi);
  if (ctx.config.sandbox) await app.register(demoBankPortal, { config: ctx.config });
  await app.register(paymentCycleRoutes, { config: ctx.config });
  await app.register(mandatePages, { config: ctx.config });
  await app.register(dashboard, { config: ctx.config });
  await app.register(operationPages, { config: ctx.config });
  await app.register(oauthApi, { ctx });
  return app;
}
