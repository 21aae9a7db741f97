// Liveness (/healthz: the process answers) and readiness (/readyz: the database runs a
// transaction, a writing one after a storage failure: store/storage-failure.ts; and the server is
// not shutting down).
import type { FastifyInstance } from 'fastify';
import { noteStorageFailure, storageFailureOf, storageReady } from '../store/storage-failure.js';

/** What a load balancer or a client is told to wait before trying again. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether the server takes new work. A server told to stop (SIGTERM) drains first: /readyz answers
 * 503 so that a load balancer stops sending, while every other request is still served
 * (cli/shutdown.ts, SHUTDOWN_DRAIN_MS).
 */
export class Readiness {
  draining = false;
}

export function healthRoutes(app: FastifyInstance, readiness: Readiness): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    if (readiness.draining) return reply.code(503).send({ status: 503, message: 'Not ready: the server is shutting down' });
    const now = Date.now();
    try {
      await storageReady(request.ctx.db, now);
      return { status: 'ok' };
    } catch (error) {
      const failure = storageFailureOf(error) ?? 'database unavailable';
      noteStorageFailure(request.ctx.db, now);
      request.log.warn({ err: error, storage: failure }, `not ready: ${failure}`);
      return reply
        .code(503)
        .header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS))
        .send({ status: 503, message: 'Not ready: the database is unavailable' });
    }
  });
}
