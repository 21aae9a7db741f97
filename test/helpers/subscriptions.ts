// Subscriptions of the automatic payment API for tests: created over HTTP as a merchant creates
// them, and signed at DemoBank through the payer's own use cases (the signing pages have their
// browser tests).
import type { AppContext } from '../../src/app/context.js';
import type { PayerCredentials } from '../../src/bank/connector.js';
import { signInForMandate, signMandate, startMandateSigning } from '../../src/app/mandate-signing.js';
import { DEMO_BANK_ID } from '../../src/domain/banks.js';
import type { RawValue } from '../../src/domain/field-rules.js';
import { DEMO_BANK_PASSWORD } from '../../src/bank/demo-bank.js';
import { DEMO_COORDINATES } from '../../src/bank/demo-bank-scenarios.js';
import type { client } from './http.js';

type Api = ReturnType<typeof client>;

/** A valid subscription request; its URLs are public, so a production account may send it too. */
export const NEW_SUBSCRIPTION = {
  name: 'Gym monthly',
  email: 'payer@example.com',
  max_amount: 50000,
  currency: 'CLP',
  notify_url: 'https://merchant.example/subscription',
  return_url: 'https://merchant.example/ok',
  cancel_url: 'https://merchant.example/cancel',
};

/** A valid charge intent request on `subscriptionId`. */
export function newCharge(subscriptionId: string, fields: Record<string, RawValue> = {}): Record<string, RawValue> {
  return {
    subscription_id: subscriptionId,
    amount: 10000,
    subject: 'November',
    body: 'Monthly fee',
    error_response_url: 'https://merchant.example/charge-error',
    custom: 'c',
    transaction_id: 'INV-1',
    notify_url: 'https://merchant.example/charge',
    ...fields,
  };
}

export async function createSubscriptionOver(api: Api, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await api.post('/v1/automatic-payment/subscription', { ...NEW_SUBSCRIPTION, ...fields });
  if (created.status !== 200) throw new Error(`subscription not created: ${JSON.stringify(created.body)}`);
  return created.body.subscription_id as string;
}

/** The payer signs the subscription's mandate at `bankId`, through the use cases the signing pages call. */
export async function signAt(
  ctx: AppContext,
  subscriptionId: string,
  bankId: string,
  credentials: PayerCredentials,
  answers: readonly string[],
): Promise<void> {
  const signing = await startMandateSigning(ctx, subscriptionId, bankId);
  await signInForMandate(ctx, signing.signingId, credentials);
  await signMandate(ctx, signing.signingId, answers);
}

/**
 * The payer signs at DemoBank: `11.111.111-1` and the signing coordinates enable the mandate at
 * once; the scenario table's RUTs and coordinates give the other outcomes.
 */
export async function signAtDemoBank(
  ctx: AppContext,
  subscriptionId: string,
  rut = '11.111.111-1',
  answers: readonly string[] = DEMO_COORDINATES.pay,
): Promise<void> {
  await signAt(ctx, subscriptionId, DEMO_BANK_ID, { identifier: rut, password: DEMO_BANK_PASSWORD }, answers);
}
