// The payments list's trigram index (payments_list_search, migration 016) without a pending list.
// A GIN index's default (fastupdate) puts new entries in a pending list, which every search reads
// through and which the insert that finds it past gin_pending_list_limit (4 MB, some 5,000
// payments) moves into the index: that create, and every create inserted in the same statement
// (store/group-commit.ts), waited up to 1.4 s under load. With fastupdate off each insert adds its
// own trigrams, a cost each create pays instead of a cliff one pays for thousands; a smaller list
// only makes the cliff lower (docs/benchmarks.md, "Payments list", measures the three).
// Turning it off does not empty the list already pending, which searches would go on reading and
// no insert would move any more: it is moved here rather than left to the next vacuum. The index's
// lock, taken by the ALTER, is held meanwhile: queries of payments wait about as long as one such
// create did, once.
// SQLite: its search index is a B-tree (migration 016), nothing to change.
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`alter index payments_list_search set (fastupdate = off)`.execute(db);
  await sql`select gin_clean_pending_list('payments_list_search')`.execute(db);
}
