// Housekeeping: writes the payer reminders that have fallen due (domain/reminder-schedule.ts) on
// the developer clock. Each is written in its own transaction with the payment locked, so it is
// ordered with any change of the payment (app/change-payment.ts locks it too): a payment paid,
// declined or deleted first gets no reminder, and one changed after finds its reminder there to
// withdraw. A run that finds a reminder already moved on by another run leaves it.
import { paymentEmail } from '../render/payment-emails.js';
import { isRemindable, nextReminderAt } from '../domain/reminder-schedule.js';
import { type DueReminder, findPayment, listDueReminders, moveNextReminder } from '../store/payments.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, forAccount, withDb } from './context.js';
import { merchantOf } from './merchant-of.js';

const BATCH = 100;

/** Writes every reminder due now, of every account or of `account` alone; returns how many were written. */
export async function sendDueReminders(ctx: AppContext, account?: number): Promise<number> {
  const time = ctx.clocks.scanTime(account);
  let written = 0;
  for (;;) {
    const due = await listDueReminders(ctx.db, time, BATCH);
    for (const reminder of due) if (await remind(forAccount(ctx, reminder.receiverId), reminder)) written++;
    // Every payment listed has moved on (to a later reminder or none), so a full batch means more may be due.
    if (due.length < BATCH) return written;
  }
}

async function remind(ctx: AppContext, due: DueReminder): Promise<boolean> {
  const now = ctx.clock.now();
  return inTransaction(ctx.db, async (trx) => {
    const payment = await findPayment(trx, due.receiverId, due.paymentId, { lock: true });
    const remindable = payment !== undefined && isRemindable(payment, now);
    const next = remindable ? nextReminderAt(payment, now) : null;
    if (!(await moveNextReminder(trx, due.paymentId, due.at, next?.getTime() ?? null)) || !remindable) return false;
    const email = paymentEmail('payment.email.reminder', payment, await merchantOf(withDb(ctx, trx), payment.receiverId), ctx.config);
    if (email) await ctx.outbox.write(trx, email);
    return email !== undefined;
  });
}
