// Funds deliveries, and the scan for the paid payments whose funds no delivery includes yet.
import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Payment } from '../domain/payment.js';
import type { ScanTime } from '../domain/scan-time.js';
import { onAccountClock } from './account-time.js';
import { dialectOf } from './database.js';
import { toPayment } from './payments.js';
import type { DB, FundDeliveryRow } from './schema.js';

// A literal, as the partial index `payments_funds_due` states it, so the planners use that index.
const UNDELIVERED = sql<SqlBool>`status_detail = 'normal' and fund_delivery_id is null`;

/** The accounts that have paid payments whose funds are due on their clock and no delivery includes. */
export async function receiversWithFundsDue(db: Kysely<DB>, time: ScanTime): Promise<number[]> {
  const rows = await db
    .selectFrom('payments')
    .select('receiver_id')
    .distinct()
    .where(UNDELIVERED)
    .where(onAccountClock('payments', 'funds_delivery_at', '<=', time))
    .orderBy('receiver_id')
    .execute();
  return rows.map((r) => r.receiver_id);
}

/**
 * One account's paid payments whose funds are due and no delivery includes. On PostgreSQL the rows
 * are locked until the transaction ends, and rows another transaction holds (a refund, another
 * run) are passed over, for the next run; on SQLite the transaction holds the database's write lock.
 */
export async function paymentsWithFundsDue(db: Kysely<DB>, receiverId: number, now: number): Promise<Payment[]> {
  const rows = await db
    .selectFrom('payments')
    .selectAll()
    .where(UNDELIVERED)
    .where('funds_delivery_at', '<=', now)
    .where('receiver_id', '=', receiverId)
    .$if(dialectOf(db) === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
  return rows.map(toPayment);
}

export async function insertFundDelivery(db: Kysely<DB>, row: FundDeliveryRow): Promise<void> {
  await db.insertInto('fund_deliveries').values(row).execute();
}

// Below both databases' limits on bound values per statement.
const CHUNK = 500;

/**
 * Names the delivery on payments that no delivery includes yet (a compare-and-set): returns how
 * many it took, so a payment another delivery took first is never counted twice. Not a column a
 * Payment holds: the payment's version stays (sharedPayment in payments.ts).
 */
export async function includeInDelivery(db: Kysely<DB>, deliveryId: string, paymentIds: readonly string[]): Promise<number> {
  let included = 0;
  for (let i = 0; i < paymentIds.length; i += CHUNK) {
    const result = await db
      .updateTable('payments')
      .set({ fund_delivery_id: deliveryId })
      .where('payment_id', 'in', paymentIds.slice(i, i + CHUNK))
      .where('fund_delivery_id', 'is', null)
      .executeTakeFirst();
    included += Number(result.numUpdatedRows);
  }
  return included;
}
