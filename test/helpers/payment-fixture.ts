// A whole Payment for the tests of pure functions: a pending payment of CLP 1,000 with nothing else
// set, which each test completes with what it is about.
import type { Payment } from '../../src/domain/payment.js';

export const FIXTURE_INSTANT = new Date('2024-04-18T13:56:54.859Z');

export function paymentFixture(overrides: Partial<Payment> = {}): Payment {
  const at = FIXTURE_INSTANT;
  return {
    paymentId: 'abc123def456',
    receiverId: 990939,
    notificationToken: 'a'.repeat(64),
    status: 'pending',
    statusDetail: 'pending',
    version: 1,
    subject: 'Order 17',
    body: null,
    amount: 1000 * 10_000,
    currency: 'CLP',
    discount: 0,
    refunded: 0,
    transactionId: null,
    custom: null,
    bankId: null,
    bankName: null,
    returnUrl: null,
    cancelUrl: null,
    pictureUrl: null,
    notifyUrl: null,
    notifyApiVersion: null,
    contractUrl: null,
    expiresAt: at,
    sendEmail: false,
    sendReminders: false,
    payerName: null,
    payerEmail: null,
    responsibleUserEmail: null,
    fixedPayerPersonalIdentifier: null,
    integratorFee: null,
    collectAccountUuid: '00000000-0000-4000-8000-000000000000',
    confirmTimeoutAt: null,
    mandatoryPaymentMethod: null,
    pspClientMerchantName: null,
    personalIdentifier: null,
    bankAccountNumber: null,
    paymentMethod: null,
    fundsSource: null,
    receiptUrl: null,
    outOfDateConciliation: false,
    conciliationAt: null,
    confirmedAt: null,
    fundsDeliveryAt: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}
