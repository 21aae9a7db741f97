// When the payer of an emailed collection that asked for reminders (send_reminders) is reminded:
// three days, one day and three hours before the payment expires, while it can still be paid.
// A reminder that would fall within twelve hours of the payment's creation is skipped: the
// collection email has just said the same. So a payment with the default 24-hour expiry gets one
// reminder (3 hours before), one that expires in a week or more gets all three. Every instant is
// on the developer clock.
import type { Payment } from './payment.js';
import { isPayable } from './payment-status.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** How long before expiry each reminder is due, the earliest first. */
export const REMINDER_OFFSETS_MS: readonly number[] = [3 * DAY, DAY, 3 * HOUR];
/** No reminder this soon after creation (the collection email). */
export const QUIET_AFTER_CREATION_MS = 12 * HOUR;

type Schedule = Pick<Payment, 'sendReminders' | 'createdAt' | 'expiresAt'>;

/** Every reminder instant of a payment, the earliest first (none if it asked for none). */
export function reminderInstants(payment: Schedule): Date[] {
  if (!payment.sendReminders) return [];
  const quietUntil = payment.createdAt.getTime() + QUIET_AFTER_CREATION_MS;
  return REMINDER_OFFSETS_MS.map((offset) => payment.expiresAt.getTime() - offset)
    .filter((at) => at >= quietUntil)
    .map((at) => new Date(at));
}

/**
 * The first reminder after `now`, or null when none is left. Reminders whose time passed unsent
 * (the clock moved past several) are not made up for: the payer gets one, then the next to come.
 */
export function nextReminderAt(payment: Schedule, now: Date): Date | null {
  return reminderInstants(payment).find((at) => at > now) ?? null;
}

/** The payer is reminded only while the payment can be paid: not paid, declined, deleted nor expired. */
export function isRemindable(payment: Pick<Payment, 'status' | 'statusDetail' | 'sendReminders' | 'expiresAt'>, now: Date): boolean {
  return payment.sendReminders && isPayable(payment) && now < payment.expiresAt;
}
