// Which paid payments' funds reach the merchant, how much each brings, and which go together. A
// payment's funds are due at its funds_delivery_at (settlement.ts); the payments of one account
// and one currency due at the same instant are paid out together, as one delivery. Without a
// confirm_timeout_date that instant is the settlement hour of a business day, so a day's payments
// of an account make one delivery.
import { isPaidNormally } from './payment-status.js';
import type { Payment } from './payment.js';
import { fundsDelivered } from './refund.js';

export interface FundDelivery {
  currency: string;
  /** When the funds were due to the merchant. */
  deliveredAt: Date;
  /** In order of conciliation (then payment id). */
  payments: Payment[];
  /** The sum of the payments' net amounts. */
  total: number;
}

/** What a payment brings to the merchant: what the payer paid, less what was refunded before delivery. */
export function netAmount(payment: Pick<Payment, 'amount' | 'refunded'>): number {
  return payment.amount - payment.refunded;
}

/**
 * Whether a delivery pays out this payment's funds at `now`. Only payments paid through the
 * provider (done/normal) have funds to deliver: a reversed payment (refunded in full) gave them
 * back to the payer, and one marked paid by the receiver never had any here.
 */
export function fundsToDeliver(payment: Payment, now: Date): boolean {
  return isPaidNormally(payment) && fundsDelivered(payment, now);
}

const byConciliation = (a: Payment, b: Payment) =>
  (a.conciliationAt?.getTime() ?? 0) - (b.conciliationAt?.getTime() ?? 0) || (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0);

/** The deliveries one account's payments make at `now`, earliest first; payments with nothing to deliver are left out. */
export function fundDeliveries(payments: readonly Payment[], now: Date): FundDelivery[] {
  const groups = new Map<string, FundDelivery>();
  for (const payment of payments) {
    if (!fundsToDeliver(payment, now)) continue;
    const deliveredAt = payment.fundsDeliveryAt!;
    const key = `${deliveredAt.getTime()} ${payment.currency}`;
    let delivery = groups.get(key);
    if (!delivery) {
      delivery = { currency: payment.currency, deliveredAt, payments: [], total: 0 };
      groups.set(key, delivery);
    }
    delivery.payments.push(payment);
    delivery.total += netAmount(payment);
  }
  const deliveries = [...groups.values()].sort((a, b) => a.deliveredAt.getTime() - b.deliveredAt.getTime() || (a.currency < b.currency ? -1 : 1));
  for (const delivery of deliveries) delivery.payments.sort(byConciliation);
  return deliveries;
}
