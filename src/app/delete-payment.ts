// Deletes a payment nobody has started paying. The row stays for the record, invisible to every
// API: reading it afterwards is a 404. Not while a transfer of it waits for its bank: the money may
// be moving, and its credit must find the payment. A charge intent's payment may be deleted only
// while its debit has not been submitted: the debit is cancelled with it.
import { stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import { AWAITING_BANK_STATES } from '../domain/payment-attempt.js';
import { isDeletable } from '../domain/payment-status.js';
import { latestAttemptIn } from '../store/attempts.js';
import { findDebitOfPayment } from '../store/debits.js';
import { findPayment } from '../store/payments.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, withDb } from './context.js';
import { changeDebit } from './change-debit.js';
import { changePayment } from './change-payment.js';

export async function deletePayment(ctx: AppContext, merchant: Merchant, paymentId: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    // The payment's row lock orders this with a transfer's claim, which locks it too (authorize-transfer.ts).
    await findPayment(trx, merchant.receiverId, paymentId, { lock: true });
    const waiting = await latestAttemptIn(trx, paymentId, AWAITING_BANK_STATES);
    await changePayment(withDb(ctx, trx), merchant.receiverId, paymentId, (payment, now) => {
      if (!isDeletable(payment)) throw stateError(`Only pending payments can be deleted; this one is ${payment.status}`);
      if (waiting) throw stateError('The payment cannot be deleted while a transfer of it waits for its bank');
      return { fields: { deleted_at: now.getTime() }, also: (changedIn) => cancelDebit(withDb(ctx, changedIn), paymentId) };
    });
  });
}

/** A compare-and-set against the job's claim of the same debit (due → submitting): one of the two wins. */
async function cancelDebit(ctx: AppContext, paymentId: string): Promise<void> {
  const debit = await findDebitOfPayment(ctx.db, paymentId);
  if (debit && !(await changeDebit(ctx, debit, 'due', { event: 'cancelled' }))) {
    throw stateError(`Only a charge whose debit is still due can be deleted; this one's debit is ${debit.state}`);
  }
}
