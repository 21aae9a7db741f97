// An attempt sent to another URL than its message's (the dashboard's "resend to another URL"):
// logged with its message, numbered in its sequence, and marked with where it went. Null: the
// message's own URL, as every attempt before this column.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('message_attempts').addColumn('url', 'text').execute();
}
