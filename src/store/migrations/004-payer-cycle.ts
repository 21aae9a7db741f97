// The payer's cycle: attempts to pay through a bank, and the credits banks report to the
// collection accounts (matched to a payment or kept for an operator).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payment_attempts')
    .addColumn('attempt_id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.payment_id'))
    .addColumn('receiver_id', 'bigint', (c) => c.notNull())
    .addColumn('bank_id', 'text', (c) => c.notNull())
    .addColumn('payer_email', 'text', (c) => c.notNull())
    .addColumn('personal_identifier', 'text')
    .addColumn('account_number', 'text')
    .addColumn('payer_name', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('failure', 'text')
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_attempts_payment').on('payment_attempts').columns(['payment_id', 'started_at']).execute();

  await db.schema
    .createTable('bank_credits')
    .addColumn('credit_id', 'text', (c) => c.primaryKey())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('bank_reference', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('credited_at', 'bigint', (c) => c.notNull())
    .addColumn('payer_bank_id', 'text')
    .addColumn('payer_name', 'text')
    .addColumn('payer_email', 'text')
    .addColumn('payer_personal_identifier', 'text')
    .addColumn('payer_account_number', 'text')
    .addColumn('payment_method', 'text')
    .addColumn('funds_source', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('payment_id', 'text')
    .addColumn('receiver_id', 'bigint')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'bigint', (c) => c.notNull())
    // A bank never reports one movement twice under the same reference: importing a statement again counts nothing twice.
    .addUniqueConstraint('bank_credits_movement', ['account', 'bank_reference'])
    .execute();
  await db.schema.createIndex('bank_credits_status').on('bank_credits').columns(['status', 'recorded_at']).execute();
  await db.schema.createIndex('bank_credits_payment').on('bank_credits').column('payment_id').execute();
}
