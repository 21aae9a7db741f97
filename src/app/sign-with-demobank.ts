// A payer signs a subscription's mandate at DemoBank without a browser: the three steps the signing
// pages take (start, sign in, answer the coordinates), so the subscription moves and is notified
// exactly as after a signature through the pages. The steps date the records on the subscription's
// account's clock, as the pages do; DemoBank's RUTs and coordinates give the outcomes of its scenario table.
import { DEMO_COORDINATES } from '../bank/demo-bank-scenarios.js';
import { DEMO_BANK_PASSWORD } from '../bank/demo-bank.js';
import { DEMO_BANK_ID } from '../domain/banks.js';
import { notFound } from '../domain/errors.js';
import type { Subscription } from '../domain/subscription.js';
import { findSubscriptionById } from '../store/subscriptions.js';
import { type AppContext, forAccount } from './context.js';
import { signInForMandate, signMandate, startMandateSigning } from './mandate-signing.js';

export async function signWithDemoBank(given: AppContext, subscriptionId: string, rut: string, answer: keyof typeof DEMO_COORDINATES): Promise<Subscription> {
  const subscription = await findSubscriptionById(given.db, subscriptionId);
  if (!subscription) throw notFound('Subscription');
  const ctx = forAccount(given, subscription.receiverId);
  const signing = await startMandateSigning(ctx, subscriptionId, DEMO_BANK_ID);
  await signInForMandate(ctx, signing.signingId, { identifier: rut, password: DEMO_BANK_PASSWORD });
  return (await signMandate(ctx, signing.signingId, DEMO_COORDINATES[answer])).subscription;
}
