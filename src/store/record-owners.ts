// Whose record an id names, for the pages payers open by a payment's, an attempt's, a mandate's or
// an operation's id: the page shows the record on its account's clock.
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export type OwnedRecord = 'payment' | 'attempt' | 'subscription' | 'signing' | 'operation';

export async function ownerOf(db: Kysely<DB>, kind: OwnedRecord, id: string): Promise<number | undefined> {
  const row =
    kind === 'payment'
      ? await db.selectFrom('payments').select('receiver_id').where('payment_id', '=', id).executeTakeFirst()
      : kind === 'attempt'
        ? await db.selectFrom('payment_attempts').select('receiver_id').where('attempt_id', '=', id).executeTakeFirst()
        : kind === 'subscription'
          ? await db.selectFrom('subscriptions').select('receiver_id').where('subscription_id', '=', id).executeTakeFirst()
          : kind === 'signing'
            ? await db
                .selectFrom('mandate_signings')
                .innerJoin('subscriptions', 'subscriptions.subscription_id', 'mandate_signings.subscription_id')
                .select('subscriptions.receiver_id')
                .where('mandate_signings.signing_id', '=', id)
                .executeTakeFirst()
            : await db.selectFrom('operations').select('receiver_id').where('operation_id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : Number(row.receiver_id);
}
