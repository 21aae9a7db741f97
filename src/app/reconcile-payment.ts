// A credit to the collection account matched a payment: the payment is done. This is the only way
// a payment becomes paid by transfer; the bank details of the credit fill the payment's payer fields.
import type { BankCredit } from '../domain/bank-credit.js';
import { findBank } from '../domain/banks.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import { receiptPath } from '../domain/receipt.js';
import { deliveryAfterReconciliation } from '../domain/settlement.js';
import type { AppContext } from './context.js';
import { changePayment, type PaymentChange } from './change-payment.js';

export interface MatchedCredit {
  bankId: string;
  payerName: string;
  payerEmail: string;
  personalIdentifier: string;
  bankAccountNumber: string;
  paymentMethod: BankCredit['paymentMethod'] & string;
  /** '' for a plain bank transfer, as the contract says. */
  fundsSource: 'debit' | 'prepaid' | 'credit' | '';
  /** When the bank credited the account. */
  creditedAt: Date;
}

/** The change a matched credit makes to its payment (changePayment decides the status). */
export function reconciliation(ctx: AppContext, merchant: Merchant, credit: MatchedCredit): (payment: Payment, now: Date) => PaymentChange {
  return (payment, now) => ({
    event: 'reconciled',
    fields: {
      bank_id: credit.bankId,
      bank_name: findBank(credit.bankId, merchant.developer)?.name ?? credit.bankId,
      payer_name: credit.payerName,
      payer_email: credit.payerEmail,
      personal_identifier: credit.personalIdentifier,
      bank_account_number: credit.bankAccountNumber,
      payment_method: credit.paymentMethod,
      funds_source: credit.fundsSource,
      conciliation_at: now.getTime(),
      out_of_date_conciliation: credit.creditedAt > payment.expiresAt ? 1 : 0,
      receipt_url: ctx.config.publicBaseUrl + receiptPath(payment.paymentId, now),
      funds_delivery_at: deliveryAfterReconciliation(now, payment.confirmTimeoutAt, merchant.features.confirm)?.getTime() ?? null,
    },
    merchant,
  });
}

/** The merchant's notification is written by the change itself, in its transaction (change-payment.ts). */
export async function reconcilePayment(ctx: AppContext, merchant: Merchant, paymentId: string, credit: MatchedCredit): Promise<Payment> {
  return changePayment(ctx, merchant.receiverId, paymentId, reconciliation(ctx, merchant, credit));
}
