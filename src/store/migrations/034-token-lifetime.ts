// What an access token's life hangs on besides its exp: the receiver secret that obtained it (each
// rotation of an account's secret counts its generation up; a token lives while its generation's
// secret authenticates), and when it was issued on the wall clock (a token lives at most one token
// lifetime of real time, whatever the account's developer clock said when it was issued).
// An account's tokens are found by an index, for its merchant's revocation of them all.
// Existing tokens are counted to the account's secret as it is now, and as issued no later than
// now: a token of an account whose clock ran ahead lives at most a year from this migration.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('merchants')
    .addColumn('secret_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('oauth_tokens')
    .addColumn('secret_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('oauth_tokens')
    .addColumn('wall_issued_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('oauth_tokens_receiver').on('oauth_tokens').column('receiver_id').execute();
  const now = Date.now();
  await db
    .updateTable('oauth_tokens')
    .set({ wall_issued_at: sql`case when issued_at < ${now} then issued_at else ${now} end` })
    .execute();
}
