// Housekeeping: records the delivery of funds whose date has passed on the developer clock, and
// tells each receiver that has a rendition_url with one accountability report per delivery. Each
// account is handled in its own transaction: its deliveries, the payments they include (a
// compare-and-set, so no payment is ever included twice, whichever runs overlap) and its reports
// commit together, so a recorded delivery always has its report and a report always its delivery.
import { accountabilityReportMessage } from '../domain/accountability-report.js';
import { fundDeliveries } from '../domain/fund-delivery.js';
import { newUuid } from '../domain/ids.js';
import { includeInDelivery, insertFundDelivery, paymentsWithFundsDue, receiversWithFundsDue } from '../store/fund-deliveries.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, forAccount, withDb } from './context.js';
import { merchantOf } from './merchant-of.js';

/** Returns how many deliveries it recorded, for every account or for `account` alone. */
export async function deliverFunds(ctx: AppContext, account?: number): Promise<number> {
  let recorded = 0;
  for (const receiverId of await receiversWithFundsDue(ctx.db, ctx.clocks.scanTime(account)))
    recorded += await deliverFundsOf(forAccount(ctx, receiverId), receiverId);
  return recorded;
}

async function deliverFundsOf(ctx: AppContext, receiverId: number): Promise<number> {
  const now = ctx.clock.now();
  return inTransaction(ctx.db, async (trx) => {
    const deliveries = fundDeliveries(await paymentsWithFundsDue(trx, receiverId, now.getTime()), now);
    if (deliveries.length === 0) return 0;
    const { renditionUrl } = await merchantOf(withDb(ctx, trx), receiverId);
    for (const delivery of deliveries) {
      const deliveryId = newUuid(ctx.random);
      await insertFundDelivery(trx, {
        delivery_id: deliveryId,
        receiver_id: receiverId,
        currency: delivery.currency,
        delivered_at: delivery.deliveredAt.getTime(),
        total: delivery.total,
        payment_count: delivery.payments.length,
        created_at: now.getTime(),
      });
      const paymentIds = delivery.payments.map((p) => p.paymentId);
      // The rows are locked (or the database is), so only a bug lets another delivery take one first.
      if ((await includeInDelivery(trx, deliveryId, paymentIds)) !== paymentIds.length)
        throw new Error(`a payment of delivery ${deliveryId} is already in another delivery`);
      if (renditionUrl) await ctx.outbox.write(trx, accountabilityReportMessage({ ...delivery, deliveryId, receiverId }, renditionUrl));
    }
    return deliveries.length;
  });
}
