// The hosts an account registered for its notifications (NOTIFY_URL_ACCOUNT_HOSTS): a JSON array of
// host names, `*.name` wildcards and addresses, read with the account. Existing accounts start with
// none: the host of their notify_url is registered by that URL itself.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('merchants')
    .addColumn('notify_hosts', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
