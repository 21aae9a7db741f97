// The reminder schedule (policy as data) and what a payment's change does to its payer's emails.
import { describe, expect, it } from 'vitest';
import { payerEmailChange } from '../../src/domain/payment-messages.js';
import type { Payment } from '../../src/domain/payment.js';
import { applyEvent } from '../../src/domain/payment-status.js';
import { isRemindable, nextReminderAt, reminderInstants } from '../../src/domain/reminder-schedule.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CREATED = new Date('2025-03-01T12:00:00Z');
const at = (ms: number) => new Date(CREATED.getTime() + ms);

function payment(expiresIn: number, overrides: Partial<Payment> = {}): Payment {
  return {
    status: 'pending',
    statusDetail: 'pending',
    sendEmail: true,
    sendReminders: true,
    createdAt: CREATED,
    expiresAt: at(expiresIn),
    ...overrides,
  } as Payment;
}

describe('reminder instants', () => {
  it('are 3 days, 1 day and 3 hours before expiry for a payment that lasts a week', () => {
    expect(reminderInstants(payment(7 * DAY))).toEqual([at(4 * DAY), at(6 * DAY), at(7 * DAY - 3 * HOUR)]);
  });

  it('skip those within 12 hours of creation: the collection email has just been sent', () => {
    // The default expiry (24 hours): only the one 3 hours before.
    expect(reminderInstants(payment(DAY))).toEqual([at(21 * HOUR)]);
    expect(reminderInstants(payment(2 * DAY))).toEqual([at(DAY), at(45 * HOUR)]);
    expect(reminderInstants(payment(15 * HOUR))).toEqual([at(12 * HOUR)]);
    expect(reminderInstants(payment(14 * HOUR))).toEqual([]);
  });

  it('are none when no reminders were asked for', () => {
    expect(reminderInstants(payment(7 * DAY, { sendReminders: false }))).toEqual([]);
    expect(nextReminderAt(payment(7 * DAY, { sendReminders: false }), CREATED)).toBeNull();
  });

  it('go on from the next one to come when the clock jumped past some', () => {
    const p = payment(7 * DAY);
    expect(nextReminderAt(p, CREATED)).toEqual(at(4 * DAY));
    expect(nextReminderAt(p, at(4 * DAY))).toEqual(at(6 * DAY));
    expect(nextReminderAt(p, at(6 * DAY + HOUR))).toEqual(at(7 * DAY - 3 * HOUR));
    expect(nextReminderAt(p, at(7 * DAY - 3 * HOUR))).toBeNull();
  });

  it('are only sent while the payment can be paid and has not expired', () => {
    const p = payment(DAY);
    expect(isRemindable(p, at(21 * HOUR))).toBe(true);
    expect(isRemindable(p, at(DAY))).toBe(false);
    expect(isRemindable({ ...p, ...applyEvent(p, 'rejected-by-payer') }, at(HOUR))).toBe(false);
    expect(isRemindable({ ...p, ...applyEvent(p, 'transfer-authorized') }, at(HOUR))).toBe(false);
    expect(isRemindable({ ...p, sendReminders: false }, at(HOUR))).toBe(false);
  });
});

describe("a payment's change and its payer's emails", () => {
  const now = at(2 * DAY);
  const p = payment(7 * DAY);

  it('withdraws the unsent ones and stops reminders when the payment can no longer be paid', () => {
    for (const event of ['reconciled', 'marked-paid-by-receiver', 'rejected-by-payer', 'marked-as-abuse', 'transfer-authorized'] as const) {
      expect(payerEmailChange(p, applyEvent(p, event), false, now)).toEqual({ withdraw: true, nextReminderAt: null });
    }
    expect(payerEmailChange(p, p, true, now)).toEqual({ withdraw: true, nextReminderAt: null });
  });

  it('resumes reminders from now when a failed transfer makes it payable again', () => {
    const verifying = { ...p, ...applyEvent(p, 'transfer-authorized') };
    expect(payerEmailChange(verifying, applyEvent(verifying, 'transfer-failed'), false, now)).toEqual({ withdraw: false, nextReminderAt: at(4 * DAY) });
  });

  it('leaves them alone otherwise, and payments not emailed always', () => {
    expect(payerEmailChange(p, p, false, now)).toBeUndefined();
    const paid = { ...p, ...applyEvent(p, 'reconciled') };
    expect(payerEmailChange(paid, applyEvent(paid, 'refunded-in-full'), false, now)).toBeUndefined();
    expect(payerEmailChange({ ...p, sendEmail: false }, applyEvent(p, 'reconciled'), false, now)).toBeUndefined();
  });
});
