// Payments found by id alone: the payer's pages and bank credits know a payment id, not its account.
import type { Kysely } from 'kysely';
import type { Payment } from '../domain/payment.js';
import { dialectOf } from './database.js';
import { inChunks } from './group-commit.js';
import { toPayment } from './payments.js';
import type { DB, PaymentRow } from './schema.js';

/** A live (not deleted) payment of any account. */
export async function findPaymentById(db: Kysely<DB>, paymentId: string, options: { lock?: boolean } = {}): Promise<Payment | undefined> {
  const row = await db
    .selectFrom('payments')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .where('deleted_at', 'is', null)
    // SQLite transactions already hold the database's write lock (BEGIN IMMEDIATE).
    .$if(options.lock === true && dialectOf(db) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  return row && toPayment(row);
}

/**
 * The live payments of these ids, locked until the transaction ends, in the order of their ids: two
 * transactions that lock overlapping sets wait for each other instead of deadlocking. As rows, which
 * HeldPayments (change-payment.ts) changes and writes back.
 */
export async function lockPaymentRows(db: Kysely<DB>, paymentIds: readonly string[]): Promise<Map<string, PaymentRow>> {
  return paymentRows(db, paymentIds, dialectOf(db) === 'postgres');
}

/** The live payments of these ids, unlocked: a few statements for a batch of ids. */
export async function findPaymentsByIds(db: Kysely<DB>, paymentIds: readonly string[]): Promise<Map<string, Payment>> {
  const rows = await paymentRows(db, paymentIds, false);
  return new Map([...rows].map(([id, row]) => [id, toPayment(row)]));
}

async function paymentRows(db: Kysely<DB>, paymentIds: readonly string[], lock: boolean): Promise<Map<string, PaymentRow>> {
  const found = new Map<string, PaymentRow>();
  for (const chunk of inChunks([...new Set(paymentIds)].sort())) {
    const rows = await db
      .selectFrom('payments')
      .selectAll()
      .where('payment_id', 'in', chunk)
      .where('deleted_at', 'is', null)
      .orderBy('payment_id')
      .$if(lock, (q) => q.forUpdate())
      .execute();
    for (const row of rows) found.set(row.payment_id, row);
  }
  return found;
}
