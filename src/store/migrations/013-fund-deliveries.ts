// Funds deliveries. An account's rendition_url (the URL it is told about accountability at) becomes
// a setting of its own, taken from the receiver-create profile it was kept in until now. A paid
// payment names the delivery that paid its funds out to the merchant: the partial index holds only
// the paid payments no delivery includes yet, so the scan for funds due stays as small as the
// backlog, whatever the size of the payments table.
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('rendition_url', 'text').execute();
  const fromProfile =
    dialectOf(db) === 'postgres' ? sql<string | null>`cast(profile as json) ->> 'rendition_url'` : sql<string | null>`json_extract(profile, '$.rendition_url')`;
  await db.updateTable('merchants').set({ rendition_url: fromProfile }).where(fromProfile, 'is not', null).execute();

  await db.schema
    .createTable('fund_deliveries')
    .addColumn('delivery_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('payment_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fund_deliveries_receiver').on('fund_deliveries').columns(['receiver_id', 'delivered_at']).execute();

  await db.schema
    .alterTable('payments')
    .addColumn('fund_delivery_id', 'text', (c) => c.references('fund_deliveries.delivery_id'))
    .execute();
  // The condition is written as the scan writes it (store/fund-deliveries.ts): the planners only
  // use a partial index for a query whose condition they can match to the index's own.
  await db.schema
    .createIndex('payments_funds_due')
    .on('payments')
    .columns(['receiver_id', 'funds_delivery_at'])
    .where(sql<boolean>`status_detail = 'normal' and fund_delivery_id is null`)
    .execute();
}
