// A developer decides what DemoBank would about automatic payments, through the sandbox, the CLI or
// DemoBank's portal: approve or reject a mandate waiting for the bank, revoke one for its payer,
// settle or fail a charge's debit before its settlement day. DemoBank books the decision and it is
// applied at once the way housekeeping applies a bank's news or answer, so the subscription or the
// payment reads changed when the call returns. Only DemoBank, only where SANDBOX is on, only for
// developer-mode accounts: a real bank decides alone.
import { decideDebit, decideMandate } from '../bank/demo-bank-mandates.js';
import { DEMO_BANK_ID } from '../domain/banks.js';
import { forbidden, notFound, stateError } from '../domain/errors.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import type { Subscription } from '../domain/subscription.js';
import { findDebit, findDebitOfPayment } from '../store/debits.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { findSubscriptionById } from '../store/subscriptions.js';
import { askAboutDebit, claimAndSubmit } from './collect-debits.js';
import { collectMandateNews } from './collect-mandate-news.js';
import { type AppContext, forAccount } from './context.js';

export type MandateDecision = 'approve' | 'reject' | 'revoke';
export type ChargeDecision = 'settle' | 'fail';

function checkSandbox(ctx: AppContext, developer: boolean): void {
  if (!ctx.config.sandbox) throw forbidden('DemoBank takes decisions from developers only where SANDBOX is on');
  if (!developer) throw forbidden('DemoBank decides for developer-mode accounts only');
}

/** `merchant`: the account asking (API); none from the CLI and DemoBank's portal. */
export async function decideDemoMandate(given: AppContext, subscriptionId: string, decision: MandateDecision, merchant?: Merchant): Promise<Subscription> {
  const subscription = await findSubscriptionById(given.db, subscriptionId);
  if (!subscription || (merchant && subscription.receiverId !== merchant.receiverId)) throw notFound('Subscription');
  const ctx = forAccount(given, subscription.receiverId);
  checkSandbox(ctx, subscription.developer);
  if (subscription.bankId !== DEMO_BANK_ID) throw stateError('The subscription has no mandate signed at DemoBank');
  if (!(await decideMandate(ctx.db, subscriptionId, decision, ctx.clock.now()))) {
    throw stateError(decision === 'revoke' ? 'The mandate is not in force: there is nothing to revoke' : 'The mandate is not waiting for the bank');
  }
  await collectMandateNews(ctx);
  return (await findSubscriptionById(ctx.db, subscriptionId))!;
}

/** Submits the charge's debit first if it is still due, so a script can settle a charge it just created. */
export async function decideDemoCharge(given: AppContext, paymentId: string, decision: ChargeDecision, merchant?: Merchant): Promise<Payment> {
  const debit = await findDebitOfPayment(given.db, paymentId);
  if (!debit || (merchant && debit.receiverId !== merchant.receiverId)) throw notFound('Charge');
  const ctx = forAccount(given, debit.receiverId);
  const subscription = (await findSubscriptionById(ctx.db, debit.subscriptionId))!;
  checkSandbox(ctx, subscription.developer);
  if (debit.bankId !== DEMO_BANK_ID) throw stateError('The charge is not debited at DemoBank');
  if (debit.state === 'due') await claimAndSubmit(ctx, debit);
  const current = (await findDebit(ctx.db, debit.debitId))!;
  if (current.state !== 'submitted') throw stateError(`The charge's debit is ${current.state}, not processing at DemoBank`);
  if (!(await decideDebit(ctx.db, current.debitId, decision, ctx.clock.now()))) throw stateError("The charge's debit is not processing at DemoBank");
  await askAboutDebit(ctx, current, 'submitted');
  return (await findPaymentById(ctx.db, paymentId))!;
}
