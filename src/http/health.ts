// Liveness (/healthz: the process answers) and readiness (/readyz: the database runs a
// transaction, a writing one after a storage failure: store/storage-failure.ts).
import type { FastifyInstance } from 'fastify';
import { noteStorageFailure, storageFailureOf, storageReady } from '../store/storage-failure.js';

/** What a load balancer or a client is told to wait before trying again. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

export function healthRoutes(app: FastifyInstance): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const now = Date.now();
    try {
      await storageReady(request.ctx.db, now);
      return { status: 'ok' };
    } catch (error) {
      const failure = storageFailureOf(error) ?? 'database unavailable';
      noteStorageFailure(request.ctx.db, now);
      request.log.warn({ err: error, storage: failure }, `not ready: ${failure}`);
      return reply.code(503).header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS)).send({ status: 503, message: 'Not ready: the database is unavailable' });
    }
  });
}
