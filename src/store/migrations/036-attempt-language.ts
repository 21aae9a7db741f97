// The language the payer chose on the payer pages when starting an attempt (`es`, `en`): the
// payment's confirmation email is written in it once the payment is reconciled. Null: an attempt
// started before this column, or without the pages (`quipu payments pay`), read as Spanish, the
// pages' default.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_attempts').addColumn('payer_lang', 'text').execute();
}
