// An authorization flow is bound to the browser that started it: the flow keeps the hash of a
// secret that only that browser holds in a cookie. Flows opened before have none and are refused.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_authorizations').addColumn('browser_hash', 'text').execute();
}
