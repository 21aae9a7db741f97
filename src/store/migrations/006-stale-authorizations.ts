// Housekeeping looks for transfers left authorizing every minute (src/app/recover-stale-transfers.ts):
// a partial index keeps that a lookup among the few attempts in that state, however many there are.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payment_attempts_authorizing')
    .on('payment_attempts')
    .column('updated_at')
    .where(sql<boolean>`state = 'authorizing'`)
    .execute();
}
