// The invalidation feed: a process that changes something other processes cache (an API key, an
// account, a revoked token) appends a row; every process reads recent rows and evicts.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface Invalidation {
  id: number;
  topic: string;
  item: string;
}

export async function appendInvalidation(db: Kysely<DB>, topic: string, item: string, at: number): Promise<void> {
  await db.insertInto('invalidations').values({ topic, item, created_at: at }).execute();
}

export async function invalidationsSince(db: Kysely<DB>, since: number): Promise<Invalidation[]> {
  return db.selectFrom('invalidations').select(['id', 'topic', 'item']).where('created_at', '>=', since).orderBy('id').execute();
}

export async function pruneInvalidations(db: Kysely<DB>, before: number): Promise<void> {
  await db.deleteFrom('invalidations').where('created_at', '<', before).execute();
}
