// What the dashboard's home reads: payments created since an instant, grouped by hour, currency and
// whether they are paid (payments_list, which leads with receiver_id and created_at, serves the
// range), and the account's transfers that wait for their bank's answer. A payment refunded in full
// is not paid, and the amount paid is what payments kept after their refunds.
import { type Kysely, sql } from 'kysely';
import { HOUR_MS, type HourTotal } from '../domain/payment-totals.js';
import { toAttempt } from './attempts.js';
import type { DB } from './schema.js';
import type { PaymentAttempt } from '../domain/payment-attempt.js';

export async function hourlyTotals(db: Kysely<DB>, receiverId: number, sinceMs: number): Promise<HourTotal[]> {
  // Literals, not parameters: PostgreSQL matches a grouped expression to the selected one by its
  // text, and two parameters ($1, $3) holding the same number are different texts.
  const hour = sql<number>`(created_at - ${sql.lit(Math.trunc(sinceMs))}) / ${sql.lit(HOUR_MS)}`;
  // A payment refunded in full is no longer paid; one refunded in part counts what it kept.
  const paid = sql<number>`case when status = 'done' and status_detail <> 'reversed' then 1 else 0 end`;
  const kept = sql<number>`sum(amount - refunded)`;
  const rows = await db
    .selectFrom('payments')
    .select([hour.as('hour'), 'currency', paid.as('paid'), (eb) => eb.fn.countAll<number>().as('count'), kept.as('amount')])
    .where('receiver_id', '=', receiverId)
    .where('created_at', '>=', sinceMs)
    .where('deleted_at', 'is', null)
    .groupBy([hour, 'currency', paid])
    .execute();
  return rows.map((r) => ({ hour: Number(r.hour), currency: r.currency, paid: Number(r.paid) === 1, count: Number(r.count), amount: Number(r.amount) }));
}

export async function uncertainAttemptsOf(db: Kysely<DB>, receiverId: number, limit: number): Promise<PaymentAttempt[]> {
  const rows = await db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('state', '=', 'uncertain')
    .where('receiver_id', '=', receiverId)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map(toAttempt);
}
