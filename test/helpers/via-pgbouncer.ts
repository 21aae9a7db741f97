// Vitest's global setup for TEST_DATABASE_VIA=pgbouncer (`npm run test:pgbouncer`): one private
// PgBouncer in transaction mode for the run, in front of TEST_DATABASE_URL's server, whose port the
// test processes find in TEST_PGBOUNCER_PORT (database.ts reaches every test database through it).
import { startPgBouncer } from './pgbouncer.js';

export default async function viaPgBouncer(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE_VIA !== 'pgbouncer') return undefined;
  if (!process.env.TEST_DATABASE_URL?.startsWith('postgres')) throw new Error('TEST_DATABASE_VIA=pgbouncer needs TEST_DATABASE_URL on a PostgreSQL server');
  const pgbouncer = await startPgBouncer(process.env.TEST_DATABASE_URL);
  process.env.TEST_PGBOUNCER_PORT = String(pgbouncer.port);
  return () => pgbouncer.stop();
}
