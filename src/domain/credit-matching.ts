// Matching a credit to the payment it pays: exact on the collection account, the amount (and its
// currency) and the payment reference, and only within what the merchant allowed for the payment
// (the payer, the bank, the method). Anything else is left unmatched with a reason, for an
// operator to resolve; a credit is never dropped.
import type { BankCredit } from './bank-credit.js';
import type { Payment } from './payment.js';
import { payerAllowed } from './payment-attempt.js';
import { findPaymentMethod } from './payment-methods.js';
import { canApply } from './payment-status.js';

export type MatchResult = { matched: true } | { matched: false; reason: string };

type MatchablePayment = Pick<
  Payment,
  'paymentId' | 'collectAccountUuid' | 'amount' | 'currency' | 'status' | 'statusDetail' | 'fixedPayerPersonalIdentifier' | 'bankId' | 'mandatoryPaymentMethod'
>;
type MatchableCredit = Pick<BankCredit, 'account' | 'amount' | 'currency' | 'reference' | 'payerBankId' | 'payerPersonalIdentifier' | 'paymentMethod'>;

/** What the merchant fixed for the payment (mandatory_payment_method, bank_id, fixed_payer_personal_identifier) that the credit breaks. */
function restrictionBroken(credit: MatchableCredit, payment: MatchablePayment): string | undefined {
  const id = payment.paymentId;
  const method = credit.paymentMethod ?? 'regular_transfer';
  const mandatory = payment.mandatoryPaymentMethod === null ? undefined : findPaymentMethod(payment.mandatoryPaymentMethod);
  if (mandatory && mandatory.paymentMethod !== method) return `payment ${id} may only be paid by ${mandatory.paymentMethod}, the credit is a ${method}`;
  if (payment.bankId !== null && credit.payerBankId !== payment.bankId) {
    return `payment ${id} may only be paid from bank ${payment.bankId}, the credit comes from ${credit.payerBankId ?? 'an unnamed bank'}`;
  }
  const fixed = payment.fixedPayerPersonalIdentifier;
  if (fixed !== null && (credit.payerPersonalIdentifier === null || !payerAllowed(fixed, credit.payerPersonalIdentifier))) {
    return `payment ${id} may only be paid by ${fixed}, the credit comes from ${credit.payerPersonalIdentifier ?? 'an unnamed payer'}`;
  }
  return undefined;
}

/**
 * `installationAccount` is the number of the collection account payers are told to transfer to
 * (a bank names the credited account so); Quipu's collect_account_uuid names it as well.
 */
export function matchCredit(credit: MatchableCredit, payment: MatchablePayment | undefined, installationAccount: string): MatchResult {
  if (credit.reference === null) return { matched: false, reason: 'the credit carries no payment reference' };
  // Compared as written, case and spaces included: a payment id is what the payer was asked to copy.
  if (!payment || credit.reference !== payment.paymentId) return { matched: false, reason: `no payment has the reference ${credit.reference}` };
  if (credit.account !== payment.collectAccountUuid && credit.account !== installationAccount)
    return { matched: false, reason: `payment ${payment.paymentId} is collected in another account` };
  if (credit.currency !== payment.currency)
    return { matched: false, reason: `payment ${payment.paymentId} is in ${payment.currency}, the credit in ${credit.currency}` };
  if (credit.amount !== payment.amount) return { matched: false, reason: `the amount differs from that of payment ${payment.paymentId}` };
  const broken = restrictionBroken(credit, payment);
  if (broken) return { matched: false, reason: broken };
  if (!canApply(payment, 'reconciled'))
    return { matched: false, reason: `payment ${payment.paymentId} is ${payment.status}/${payment.statusDetail} and cannot be reconciled` };
  return { matched: true };
}
