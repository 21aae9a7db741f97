// Credits reported to the collection accounts (by an operator, a statement file or a bank
// connector) are recorded and matched in one transaction. A match reconciles its payment and
// writes the merchant's notification in that same transaction; a credit that matches nothing is
// kept as unmatched with the reason; a movement already recorded is counted once.
import type { BankCredit } from '../domain/bank-credit.js';
import { matchCredit } from '../domain/credit-matching.js';
import { newUuid } from '../domain/ids.js';
import type { Payment } from '../domain/payment.js';
import { insertCreditOnce, settleCredit } from '../store/credits.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, withDb } from './context.js';
import { merchantOf } from './merchant-of.js';
import { type MatchedCredit, reconcilePayment } from './reconcile-payment.js';

export type CreditOutcome =
  | { bankReference: string; status: 'matched'; paymentId: string }
  | { bankReference: string; status: 'unmatched'; reason: string }
  | { bankReference: string; status: 'duplicate' };

/** The payer's details a credit brings to its payment; what the bank left out the payment may already know. */
function matchedCredit(credit: BankCredit, payment: Payment): MatchedCredit {
  return {
    bankId: credit.payerBankId ?? '',
    payerName: credit.payerName ?? payment.payerName ?? '',
    payerEmail: credit.payerEmail ?? payment.payerEmail ?? '',
    personalIdentifier: credit.payerPersonalIdentifier ?? '',
    bankAccountNumber: credit.payerAccountNumber ?? '',
    paymentMethod: credit.paymentMethod ?? 'regular_transfer',
    fundsSource: credit.fundsSource ?? '',
    creditedAt: credit.creditedAt,
  };
}

async function recordOne(ctx: AppContext, credit: BankCredit, source: string): Promise<CreditOutcome> {
  const creditId = newUuid(ctx.random);
  const recorded = { ...credit, creditId, status: 'unmatched' as const, reason: null, paymentId: null, receiverId: null, source, recordedAt: ctx.clock.now() };
  // Claiming the movement first makes a concurrent import of the same statement wait here and then count it as a duplicate.
  if (!(await insertCreditOnce(ctx.db, recorded))) return { bankReference: credit.bankReference, status: 'duplicate' };
  const payment = credit.reference === null ? undefined : await findPaymentById(ctx.db, credit.reference, { lock: true });
  const match = matchCredit(credit, payment, ctx.config.collectionAccount.number);
  if (!match.matched) {
    await settleCredit(ctx.db, creditId, { status: 'unmatched', reason: match.reason, payment_id: null, receiver_id: null });
    return { bankReference: credit.bankReference, status: 'unmatched', reason: match.reason };
  }
  const merchant = await merchantOf(ctx, payment!.receiverId);
  await reconcilePayment(ctx, merchant, payment!.paymentId, matchedCredit(credit, payment!));
  await settleCredit(ctx.db, creditId, { status: 'matched', reason: null, payment_id: payment!.paymentId, receiver_id: payment!.receiverId });
  return { bankReference: credit.bankReference, status: 'matched', paymentId: payment!.paymentId };
}

export async function recordCredits(ctx: AppContext, credits: readonly BankCredit[], source: string): Promise<CreditOutcome[]> {
  return inTransaction(ctx.db, async (trx) => {
    const inTrx = withDb(ctx, trx);
    const outcomes: CreditOutcome[] = [];
    for (const credit of credits) outcomes.push(await recordOne(inTrx, credit, source));
    return outcomes;
  });
}
