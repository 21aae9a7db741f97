// Liveness (/healthz: the process answers) and readiness (/readyz: the database runs a transaction).
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';

export function healthRoutes(app: FastifyInstance): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    try {
      // A transaction, not a bare `select 1`: on SQLite that never touches the file, while a
      // transaction takes the write lock every payment needs, so a database file another process
      // keeps locked is reported, as PostgreSQL refusing connections is.
      await request.ctx.db.transaction().execute((trx) => sql`select 1`.execute(trx));
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'database not ready');
      return reply.code(503).send({ status: 503, message: 'Database unavailable' });
    }
  });
}
