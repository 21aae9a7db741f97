// Matching a credit to the payment it pays: exact on the collection account, the amount (and its
// currency) and the payment reference. Anything else is left unmatched with a reason, for an
// operator to resolve; a credit is never dropped.
import type { BankCredit } from './bank-credit.js';
import type { Payment } from './payment.js';
import { canApply } from './payment-status.js';

export type MatchResult = { matched: true } | { matched: false; reason: string };

/** Payers type the reference into their bank's comment field: case and surrounding spaces are noise. */
export function normalizeReference(reference: string): string {
  return reference.trim().toLowerCase();
}

type MatchablePayment = Pick<Payment, 'paymentId' | 'collectAccountUuid' | 'amount' | 'currency' | 'status' | 'statusDetail'>;

export function matchCredit(credit: Pick<BankCredit, 'account' | 'amount' | 'currency' | 'reference'>, payment: MatchablePayment | undefined): MatchResult {
  if (credit.reference === null || normalizeReference(credit.reference) === '') return { matched: false, reason: 'the credit carries no payment reference' };
  if (!payment) return { matched: false, reason: `no payment has the reference ${credit.reference}` };
  if (credit.account !== payment.collectAccountUuid) return { matched: false, reason: `payment ${payment.paymentId} is collected in another account` };
  if (credit.currency !== payment.currency) return { matched: false, reason: `payment ${payment.paymentId} is in ${payment.currency}, the credit in ${credit.currency}` };
  if (credit.amount !== payment.amount) return { matched: false, reason: `the amount differs from that of payment ${payment.paymentId}` };
  if (!canApply(payment, 'reconciled')) return { matched: false, reason: `payment ${payment.paymentId} is ${payment.status}/${payment.statusDetail} and cannot be reconciled` };
  return { matched: true };
}
