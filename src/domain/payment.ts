// A payment as the use cases see it: every field of the contract's Payment resource plus what the
// service needs to enforce its rules (refunded amount, delivery of funds, version).
import type { PaymentState } from './payment-status.js';

export interface Payment extends PaymentState {
  paymentId: string;
  receiverId: number;
  notificationToken: string;
  version: number;
  subject: string;
  body: string | null;
  amount: number;
  currency: string;
  discount: number;
  refunded: number;
  transactionId: string | null;
  custom: string | null;
  bankId: string | null;
  bankName: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  pictureUrl: string | null;
  notifyUrl: string | null;
  notifyApiVersion: string | null;
  contractUrl: string | null;
  expiresAt: Date;
  sendEmail: boolean;
  sendReminders: boolean;
  payerName: string | null;
  payerEmail: string | null;
  responsibleUserEmail: string | null;
  fixedPayerPersonalIdentifier: string | null;
  integratorFee: number | null;
  collectAccountUuid: string;
  confirmTimeoutAt: Date | null;
  mandatoryPaymentMethod: string | null;
  pspClientMerchantName: string | null;
  personalIdentifier: string | null;
  bankAccountNumber: string | null;
  paymentMethod: string | null;
  fundsSource: string | null;
  receiptUrl: string | null;
  outOfDateConciliation: boolean;
  conciliationAt: Date | null;
  confirmedAt: Date | null;
  fundsDeliveryAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The data the payer's terminal app needs to open the payment directly: the bank is known. */
export function readyForTerminal(payment: Pick<Payment, 'bankId'>): boolean {
  return payment.bankId !== null;
}

/**
 * Who paid and how, as the provider names these fields in the Payment resource and in 3.0
 * notifications alike (in this order); empty until reconciliation fills them.
 */
export function settlementFields(payment: Payment) {
  return {
    bank: payment.bankName ?? '',
    bank_id: payment.bankId ?? '',
    payer_name: payment.payerName ?? '',
    payer_email: payment.payerEmail ?? '',
    personal_identifier: payment.personalIdentifier ?? '',
    bank_account_number: payment.bankAccountNumber ?? '',
    out_of_date_conciliation: payment.outOfDateConciliation,
    transaction_id: payment.transactionId ?? '',
  };
}

/** The payment-create answer: where the payer pays (the provider's URL formats). */
export interface PaymentUrls {
  payment_id: string;
  payment_url: string;
  simplified_transfer_url: string;
  transfer_url: string;
  app_url: string;
  ready_for_terminal: boolean;
}

export function paymentUrls(baseUrl: string, payment: Payment): PaymentUrls {
  const id = payment.paymentId;
  return {
    payment_id: id,
    payment_url: `${baseUrl}/payment/info/${id}`,
    simplified_transfer_url: `${baseUrl}/payment/simplified/${id}`,
    transfer_url: `${baseUrl}/payment/manual/${id}`,
    app_url: `khipu:///pos/${id}`,
    ready_for_terminal: readyForTerminal(payment),
  };
}
