// Whose record an id names, for the pages payers open by a payment's, an attempt's, a mandate's or
// an operation's id: the page shows the record on its account's clock. A new kind of page is a new row.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

type Owner = { receiver_id: number } | undefined;

const OWNERS = {
  payment: (db, id) => db.selectFrom('payments').select('receiver_id').where('payment_id', '=', id).executeTakeFirst(),
  attempt: (db, id) => db.selectFrom('payment_attempts').select('receiver_id').where('attempt_id', '=', id).executeTakeFirst(),
  subscription: (db, id) => db.selectFrom('subscriptions').select('receiver_id').where('subscription_id', '=', id).executeTakeFirst(),
  signing: (db, id) =>
    db
      .selectFrom('mandate_signings')
      .innerJoin('subscriptions', 'subscriptions.subscription_id', 'mandate_signings.subscription_id')
      .select('subscriptions.receiver_id')
      .where('mandate_signings.signing_id', '=', id)
      .executeTakeFirst(),
  operation: (db, id) => db.selectFrom('operations').select('receiver_id').where('operation_id', '=', id).executeTakeFirst(),
} satisfies Record<string, (db: Kysely<DB>, id: string) => Promise<Owner>>;

export type OwnedRecord = keyof typeof OWNERS;

export async function ownerOf(db: Kysely<DB>, kind: OwnedRecord, id: string): Promise<number | undefined> {
  const row = await OWNERS[kind](db, id);
  return row === undefined ? undefined : Number(row.receiver_id);
}
