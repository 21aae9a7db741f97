// The automatic payment API: subscriptions and the history of their mandates, the payer's signing
// sessions, and the debits that collect charge intents (each the debit of one payment). DemoBank's
// books gain the mandates signed at it and the debits it was sent (src/bank/demo-bank-mandates.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscriptions')
    .addColumn('subscription_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('max_amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('notify_url', 'text', (c) => c.notNull())
    .addColumn('return_url', 'text', (c) => c.notNull())
    .addColumn('cancel_url', 'text', (c) => c.notNull())
    .addColumn('service_reference', 'text')
    .addColumn('image_url', 'text')
    .addColumn('description', 'text')
    .addColumn('developer', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('bank_id', 'text')
    .addColumn('payer_identifier', 'text')
    .addColumn('payer_account', 'text')
    .addColumn('payer_name', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subscriptions_receiver').on('subscriptions').columns(['receiver_id', 'created_at']).execute();

  await db.schema
    .createTable('subscription_changes')
    .addColumn('change_id', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.subscription_id'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('from_state', 'text', (c) => c.notNull())
    .addColumn('to_state', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subscription_changes_subscription').on('subscription_changes').columns(['subscription_id', 'changed_at']).execute();

  await db.schema
    .createTable('mandate_signings')
    .addColumn('signing_id', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.subscription_id'))
    .addColumn('bank_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('personal_identifier', 'text')
    .addColumn('account_number', 'text')
    .addColumn('payer_name', 'text')
    .addColumn('failure', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mandate_signings_subscription').on('mandate_signings').columns(['subscription_id']).execute();

  await db.schema
    .createTable('debits')
    .addColumn('debit_id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull().unique().references('payments.payment_id'))
    .addColumn('receiver_id', 'bigint', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.subscription_id'))
    .addColumn('bank_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('error_response_url', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('failure', 'text')
    .addColumn('next_check_at', 'bigint', (c) => c.notNull())
    .addColumn('submitted_at', 'bigint')
    .addColumn('settled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The job's scans: the due debits, and those to ask the bank about, by when they are next looked at.
  await db.schema.createIndex('debits_work').on('debits').columns(['state', 'next_check_at']).execute();
  await db.schema.createIndex('debits_subscription').on('debits').columns(['subscription_id', 'created_at']).execute();

  await db.schema
    .createTable('demobank_mandates')
    .addColumn('mandate_id', 'text', (c) => c.primaryKey())
    .addColumn('personal_identifier', 'text', (c) => c.notNull())
    .addColumn('account_number', 'text', (c) => c.notNull())
    .addColumn('creditor', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('max_amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('activates_at', 'bigint')
    .addColumn('event_seq', 'bigint', (c) => c.notNull())
    .addColumn('signed_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('demobank_mandates_payer').on('demobank_mandates').columns(['personal_identifier']).execute();
  await db.schema.createIndex('demobank_mandates_events').on('demobank_mandates').columns(['event_seq']).execute();

  await db.schema
    .createTable('demobank_debits')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('mandate_id', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('order_json', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('settles_at', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('submissions', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('demobank_debits_due').on('demobank_debits').columns(['state', 'settles_at']).execute();
}
