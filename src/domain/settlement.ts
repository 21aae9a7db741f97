// When the funds of a paid payment are delivered to the merchant. Until then a payment can be
// refunded; afterwards it cannot.
import { nextBusinessDay } from './business-days.js';

/**
 * At reconciliation: accounts that contracted confirmation hold the funds until the merchant
 * confirms (or until confirm_timeout_date, the collection submission date); the others receive
 * them on the next business day.
 */
export function deliveryAfterReconciliation(conciliationAt: Date, confirmTimeoutAt: Date | null, confirmContracted: boolean): Date | null {
  if (confirmTimeoutAt) return confirmTimeoutAt;
  return confirmContracted ? null : nextBusinessDay(conciliationAt);
}

/** At confirmation: the next business day, unless an earlier delivery was already due. */
export function deliveryAfterConfirmation(confirmedAt: Date, scheduled: Date | null): Date {
  const next = nextBusinessDay(confirmedAt);
  return scheduled && scheduled < next ? scheduled : next;
}
