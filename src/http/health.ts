// Liveness (/healthz: the process answers) and readiness (/readyz: the database answers too).
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';

export function healthRoutes(app: FastifyInstance): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await sql`select 1`.execute(request.ctx.db);
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'database not ready');
      return reply.code(503).send({ status: 503, message: 'Database unavailable' });
    }
  });
}
