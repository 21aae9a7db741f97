// A developer pays a payment at DemoBank without a browser, as `stripe trigger` does: the payer's
// own three steps, the ones the payer pages take (start an attempt, sign in at DemoBank, authorise
// with the coordinates of the outcome wanted), so the payment moves, is reconciled and is notified
// exactly as after a payment through the pages. Only developer-mode accounts' payments: DemoBank
// is not a bank of production accounts.
import { DEMO_BANK_PASSWORD } from '../bank/demo-bank.js';
import { DEMO_COORDINATES, DEMO_RUT } from '../bank/demo-bank-scenarios.js';
import { DEMO_BANK_ID } from '../domain/banks.js';
import { forbidden } from '../domain/errors.js';
import type { Payment } from '../domain/payment.js';
import { authorizeTransfer } from './authorize-transfer.js';
import { loginToBank } from './bank-login.js';
import { type AppContext, forAccount } from './context.js';
import { getPayerPayment } from './payer-payment.js';
import { startAttempt } from './start-attempt.js';

/** What DemoBank does with the transfer: execute it, fail it, or leave it uncertain for `quipu demobank confirm|fail`. */
export type DemoBankOutcome = keyof typeof DEMO_COORDINATES;

/** Where the payment names no payer email, the receipt goes to DemoBank's own test payer. */
export const DEMO_PAYER_EMAIL = 'payer@demobank.test';

export async function payWithDemoBank(given: AppContext, paymentId: string, outcome: DemoBankOutcome): Promise<Payment> {
  const { payment, merchant } = await getPayerPayment(given, paymentId);
  // The payer's steps date the payment's records on its account's clock, as its pages do.
  const ctx = forAccount(given, merchant.receiverId);
  if (!merchant.developer) throw forbidden('DemoBank pays payments of developer-mode accounts only; this one belongs to a production account');
  const attempt = await startAttempt(ctx, paymentId, { bankId: DEMO_BANK_ID, payerEmail: payment.payerEmail ?? DEMO_PAYER_EMAIL });
  // The payer the merchant fixed is the only one who may pay: DemoBank signs in any valid RUT.
  await loginToBank(ctx, attempt.attemptId, { identifier: payment.fixedPayerPersonalIdentifier ?? DEMO_RUT, password: DEMO_BANK_PASSWORD });
  return (await authorizeTransfer(ctx, attempt.attemptId, DEMO_COORDINATES[outcome])).payment;
}
