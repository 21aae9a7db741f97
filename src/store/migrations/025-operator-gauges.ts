// What /metrics reads on every scrape, each from an index whose size follows what it counts rather
// than the outbox's history (store/operator-gauges.ts): the messages whose retries ran out, and the
// attempts of the last minutes.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('messages_exhausted')
    .on('messages')
    .column('kind')
    .where(sql<boolean>`status = 'exhausted'`)
    .execute();
  await db.schema.createIndex('message_attempts_started').on('message_attempts').columns(['started_at', 'outcome']).execute();
}
