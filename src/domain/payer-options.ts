// What a payer may choose on the payment pages: the methods the account offers (or the one the
// merchant made mandatory), and the banks that can pay this payment (the fixed bank_id only, if
// given; each bank's currency and min_amount).
import { type Bank, banksFor } from './banks.js';
import type { Merchant } from './merchant.js';
import type { Payment } from './payment.js';
import { findPaymentMethod, type PaymentMethodInfo } from './payment-methods.js';

export function payerMethods(payment: Pick<Payment, 'mandatoryPaymentMethod'>, merchant: Pick<Merchant, 'paymentMethods'>): PaymentMethodInfo[] {
  const offered = merchant.paymentMethods.flatMap((id) => findPaymentMethod(id) ?? []);
  return payment.mandatoryPaymentMethod ? offered.filter((m) => m.id === payment.mandatoryPaymentMethod) : offered;
}

export function allowsMethod(payment: Pick<Payment, 'mandatoryPaymentMethod'>, merchant: Pick<Merchant, 'paymentMethods'>, methodId: string): boolean {
  return payerMethods(payment, merchant).some((m) => m.id === methodId);
}

export type BankRefusal = 'currency' | 'min-amount';

export interface BankOption {
  bank: Bank;
  /** Why this bank cannot pay this payment, if it cannot. */
  refusal?: BankRefusal;
}

export function bankRefusal(bank: Bank, payment: Pick<Payment, 'amount' | 'currency'>): BankRefusal | undefined {
  if (bank.currency !== payment.currency) return 'currency';
  if (payment.amount < bank.minAmount) return 'min-amount';
  return undefined;
}

export function payerBanks(payment: Pick<Payment, 'amount' | 'currency' | 'bankId'>, developer: boolean): BankOption[] {
  const banks = banksFor(developer).filter((b) => payment.bankId === null || b.bankId === payment.bankId);
  return banks.map((bank) => ({ bank, refusal: bankRefusal(bank, payment) }));
}
