// Credits reported to the collection accounts (by an operator, a statement file or a bank
// connector) are recorded and matched in one transaction. A match reconciles its payment and
// writes the merchant's notification in that same transaction; a credit that matches nothing is
// kept as unmatched with the reason; a movement already recorded is counted once.
import type { BankCredit } from '../domain/bank-credit.js';
import { matchCredit } from '../domain/credit-matching.js';
import { newUuid } from '../domain/ids.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { insertCreditsOnce, type Settlement, settleCredits } from '../store/credits.js';
import { lockPaymentRows } from '../store/payment-lookup.js';
import { inTransaction } from '../store/transaction.js';
import { type AppContext, withDb } from './context.js';
import { merchantOf } from './merchant-of.js';
import { HeldPayments } from './change-payment.js';
import { type MatchedCredit, reconciliation } from './reconcile-payment.js';

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

/**
 * Set-wise, so that a statement of a hundred credits costs a few queries, not one per credit: every
 * movement is claimed first (a concurrent import of the same statement waits there and then counts
 * it as a duplicate), the payments they name are locked at once, each claimed credit is matched and
 * its payment reconciled in turn (a second credit for a payment sees it paid), and the payments,
 * the outcomes and the notifications are written together.
 */
export async function recordCredits(ctx: AppContext, credits: readonly BankCredit[], source: string): Promise<CreditOutcome[]> {
  return inTransaction(ctx.db, async (trx) => {
    const outbox = ctx.outbox.collecting();
    const inTrx = { ...withDb(ctx, trx), outbox };
    const recordedAt = ctx.clock.now();
    const recorded = credits.map((credit) => ({
      ...credit,
      creditId: newUuid(ctx.random),
      status: 'unmatched' as const,
      reason: null,
      paymentId: null,
      receiverId: null,
      source,
      recordedAt,
    }));
    const claimed = await insertCreditsOnce(trx, recorded);
    const mine = recorded.filter((credit) => claimed.has(credit.creditId));
    const payments = new HeldPayments(
      inTrx,
      await lockPaymentRows(
        trx,
        mine.flatMap((credit) => (credit.reference === null ? [] : [credit.reference])),
      ),
    );
    const merchants = new Map<number, Promise<Merchant>>();
    const merchant = (receiverId: number) => merchants.get(receiverId) ?? merchants.set(receiverId, merchantOf(inTrx, receiverId)).get(receiverId)!;
    const settlements: Settlement[] = [];
    const outcomes: CreditOutcome[] = [];
    for (const credit of recorded) {
      if (!claimed.has(credit.creditId)) {
        outcomes.push({ bankReference: credit.bankReference, status: 'duplicate' });
        continue;
      }
      const payment = credit.reference === null ? undefined : payments.get(credit.reference);
      const match = matchCredit(credit, payment, ctx.config.collectionAccount.number);
      if (!match.matched) {
        settlements.push({ creditId: credit.creditId, matched: false, reason: match.reason });
        outcomes.push({ bankReference: credit.bankReference, status: 'unmatched', reason: match.reason });
        continue;
      }
      const paid = payments.change(
        payment!.receiverId,
        payment!.paymentId,
        reconciliation(ctx, await merchant(payment!.receiverId), matchedCredit(credit, payment!)),
      );
      settlements.push({ creditId: credit.creditId, matched: true });
      outcomes.push({ bankReference: credit.bankReference, status: 'matched', paymentId: paid.paymentId });
    }
    await payments.write();
    await outbox.flush(trx);
    await settleCredits(trx, settlements);
    return outcomes;
  });
}
