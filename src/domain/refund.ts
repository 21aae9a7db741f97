// Refund arithmetic and eligibility. The store applies the result with a guarded update, so the
// sum of refunds can never pass the paid amount even when requests race.
import type { DomainError } from './errors.js';
import { fieldError, forbidden, stateError } from './errors.js';
import { isPaidNormally, type PaymentState } from './payment-status.js';

export interface RefundablePayment extends PaymentState {
  amount: number;
  refunded: number;
  fundsDeliveryAt: Date | null;
}

export interface RefundPlan {
  amount: number;
  /** Refunds will add up to the whole amount: the payment becomes reversed. */
  full: boolean;
}

/** Funds are delivered once the clock passes their delivery date; only then are they out of reach. */
export function fundsDelivered(payment: { fundsDeliveryAt: Date | null }, now: Date): boolean {
  return payment.fundsDeliveryAt !== null && payment.fundsDeliveryAt <= now;
}

export function planRefund(payment: RefundablePayment, requested: number | undefined, refundsEnabled: boolean, now: Date): RefundPlan | DomainError {
  if (!refundsEnabled) return forbidden('Refunds are only available to accounts that collect in a provider account');
  if (!isPaidNormally(payment)) {
    return stateError(
      payment.statusDetail === 'reversed'
        ? 'The payment has already been refunded in full'
        : `Only paid payments can be refunded; this one is ${payment.status}/${payment.statusDetail}`,
    );
  }
  if (fundsDelivered(payment, now)) return stateError('The funds of this payment have already been delivered to the merchant; it can no longer be refunded');
  const remaining = payment.amount - payment.refunded;
  const amount = requested ?? remaining;
  if (amount <= 0) return fieldError('amount', 'must be greater than zero');
  if (amount > remaining) return fieldError('amount', 'exceeds the amount that remains to be refunded');
  return { amount, full: amount === remaining };
}
