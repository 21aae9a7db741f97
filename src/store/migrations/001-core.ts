// Accounts, payments, refunds, idempotency keys, the invalidation feed and settings.
import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('receiver_id', 'bigint', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('developer', 'integer', (c) => c.notNull())
    .addColumn('notify_url', 'text')
    .addColumn('notify_api_version', 'text', (c) => c.notNull())
    .addColumn('feature_confirm', 'integer', (c) => c.notNull())
    .addColumn('feature_integrator', 'integer', (c) => c.notNull())
    .addColumn('feature_refunds', 'integer', (c) => c.notNull())
    .addColumn('feature_contract_url', 'integer', (c) => c.notNull())
    .addColumn('feature_psp', 'integer', (c) => c.notNull())
    .addColumn('parent_receiver_id', 'bigint', (c) => c.references('merchants.receiver_id'))
    .addColumn('payment_methods', 'text', (c) => c.notNull())
    .addColumn('users', 'text', (c) => c.notNull())
    .addColumn('collect_accounts', 'text', (c) => c.notNull())
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('payments')
    .addColumn('payment_id', 'text', (c) => c.primaryKey())
    .addColumn('receiver_id', 'bigint', (c) => c.notNull().references('merchants.receiver_id'))
    .addColumn('notification_token', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_detail', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('discount', 'bigint', (c) => c.notNull())
    .addColumn('refunded', 'bigint', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('custom', 'text')
    .addColumn('bank_id', 'text')
    .addColumn('bank_name', 'text')
    .addColumn('return_url', 'text')
    .addColumn('cancel_url', 'text')
    .addColumn('picture_url', 'text')
    .addColumn('notify_url', 'text')
    .addColumn('notify_api_version', 'text')
    .addColumn('contract_url', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('send_email', 'integer', (c) => c.notNull())
    .addColumn('send_reminders', 'integer', (c) => c.notNull())
    .addColumn('payer_name', 'text')
    .addColumn('payer_email', 'text')
    .addColumn('responsible_user_email', 'text')
    .addColumn('fixed_payer_personal_identifier', 'text')
    .addColumn('integrator_fee', 'bigint')
    .addColumn('collect_account_uuid', 'text', (c) => c.notNull())
    .addColumn('confirm_timeout_at', 'bigint')
    .addColumn('mandatory_payment_method', 'text')
    .addColumn('psp_client_merchant_name', 'text')
    .addColumn('personal_identifier', 'text')
    .addColumn('bank_account_number', 'text')
    .addColumn('payment_method', 'text')
    .addColumn('funds_source', 'text')
    .addColumn('receipt_url', 'text')
    .addColumn('out_of_date_conciliation', 'integer', (c) => c.notNull())
    .addColumn('conciliation_at', 'bigint')
    .addColumn('confirmed_at', 'bigint')
    .addColumn('funds_delivery_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addCheckConstraint('amount_positive', sql`amount > 0`)
    .addCheckConstraint('refunds_within_amount', sql`refunded >= 0 and refunded <= amount`)
    .execute();
  await db.schema.createIndex('payments_receiver_created').on('payments').columns(['receiver_id', 'created_at']).execute();
  await db.schema.createIndex('payments_receiver_payer').on('payments').columns(['receiver_id', 'payer_email', 'conciliation_at']).execute();

  await db.schema
    .createTable('refunds')
    .addColumn('refund_id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.payment_id'))
    .addColumn('receiver_id', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refunds_payment').on('refunds').column('payment_id').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('receiver_id', 'bigint', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['receiver_id', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();

  const feed = db.schema.createTable('invalidations');
  await (
    dialectOf(db) === 'postgres'
      ? feed.addColumn('id', 'bigserial', (c) => c.primaryKey())
      : feed.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
