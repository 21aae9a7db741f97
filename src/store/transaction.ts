// Runs work in a transaction, joining the caller's if there is one: a use case called inside an
// idempotent request writes in the request's transaction.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

export async function inTransaction<T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute((trx: Transaction<DB>) => work(trx));
}

/** A unique-constraint violation, in either database. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
