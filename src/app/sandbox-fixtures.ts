// A sandbox account's fixtures (domain/sandbox-fixtures.ts) made real: each record is created and
// taken to the state asked for through the use cases a merchant, a payer and DemoBank cause, so its
// rows, history, messages and DemoBank's books are the ones those steps leave. A use case's refusal
// is answered as a 400 naming the fixture's path; the caller removes the account it made.
import { DEMO_RUT, PENDING_APPROVAL_RUT } from '../bank/demo-bank-scenarios.js';
import { DEMO_BANK_ID } from '../domain/banks.js';
import { DomainError, validationError } from '../domain/errors.js';
import type { RawValue } from '../domain/field-rules.js';
import { wireStatus } from '../domain/mandate-status.js';
import type { Merchant } from '../domain/merchant.js';
import type { Payment } from '../domain/payment.js';
import {
  type ChargeFixture,
  type DescriptorFixture,
  type FixtureKind,
  fixturePath,
  type PaymentFixture,
  type SandboxFixtures,
  type SubscriptionFixture,
} from '../domain/sandbox-fixtures.js';
import type { Subscription } from '../domain/subscription.js';
import type { Clock } from '../runtime/clock.js';
import { type AppContext, forAccount } from './context.js';
import { createCharge } from './create-charge.js';
import { createPayment } from './create-payment.js';
import { createSubscription } from './create-subscription.js';
import { decideDemoCharge, decideDemoMandate } from './demobank-decisions.js';
import { issueDescriptor } from './issue-descriptor.js';
import { DEMO_PAYER_EMAIL, payWithDemoBank } from './pay-with-demobank.js';
import { getPayment } from './payment-queries.js';
import { refundPayment } from './refund-payment.js';
import { signWithDemoBank } from './sign-with-demobank.js';

export interface CreatedPayment {
  ref: string;
  payment_id: string;
  status: string;
  status_detail: string;
}
export interface CreatedSubscription {
  ref: string;
  subscription_id: string;
  status: string;
}
export interface CreatedCharge extends CreatedPayment {
  subscription_id: string;
}
export interface CreatedDescriptor {
  ref: string;
  operation_id: string;
  description: string;
}
export interface CreatedFixtures {
  payments: CreatedPayment[];
  subscriptions: CreatedSubscription[];
  charges: CreatedCharge[];
  descriptors: CreatedDescriptor[];
}

const AMOUNT = 1000;
const MAX_AMOUNT = 50_000;
const DAY_MS = 24 * 3_600_000;
/** An expired payment was created this long before the account's now, and expired a day after its creation. */
const EXPIRED_CREATED_AGO_MS = DAY_MS + 3_600_000;
/**
 * Where callbacks go when neither the fixture nor the account names one (the automatic payment API
 * requires them): a reserved name that nothing answers, so the events page shows the attempts.
 */
const NO_RECEIVER = 'https://fixtures.example';

/** Runs one fixture's steps; a use case's refusal becomes a 400 naming the fixture's path (and its field). */
async function atPath<T>(kind: FixtureKind, index: number, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const path = fixturePath(kind, index);
    const fields =
      error.fields.length > 0 ? error.fields.map((f) => ({ field: `${path}.${f.field}`, message: f.message })) : [{ field: path, message: error.message }];
    throw validationError(fields, `${path}: ${error.message}`);
  }
}

/** The same context on a clock `agoMs` behind the account's: what it creates is dated as if made then. */
function earlier(ctx: AppContext, agoMs: number): AppContext {
  const clock: Clock = { now: () => new Date(ctx.clock.now().getTime() - agoMs), offsetMs: ctx.clock.offsetMs - agoMs, account: ctx.clock.account };
  return { ...ctx, clock };
}

const paymentView = (ref: string, payment: Payment): CreatedPayment => ({
  ref,
  payment_id: payment.paymentId,
  status: payment.status,
  status_detail: payment.statusDetail,
});

async function paymentFixture(ctx: AppContext, merchant: Merchant, fixture: PaymentFixture): Promise<CreatedPayment> {
  const raw: Record<string, RawValue> = {
    amount: fixture.amount ?? AMOUNT,
    currency: fixture.currency ?? 'CLP',
    subject: fixture.subject ?? `Fixture ${fixture.ref}`,
    transaction_id: fixture.transaction_id,
    payer_email: fixture.payer_email,
    notify_url: fixture.notify_url,
  };
  if (fixture.status === 'expired') {
    // Created as it would have been a day and an hour ago, with a day to be paid: it expired an hour ago.
    const then = earlier(ctx, EXPIRED_CREATED_AGO_MS);
    const expires = new Date(then.clock.now().getTime() + DAY_MS).toISOString();
    return paymentView(fixture.ref, await createPayment(then, merchant, 'v3', { ...raw, expires_date: expires }));
  }
  const { paymentId } = await createPayment(ctx, merchant, 'v3', raw);
  if (fixture.status === 'verifying') await payWithDemoBank(ctx, paymentId, 'uncertain');
  if (fixture.status === 'done' || fixture.status === 'reversed') await payWithDemoBank(ctx, paymentId, 'pay');
  if (fixture.status === 'reversed') await refundPayment(ctx, merchant, paymentId, undefined);
  return paymentView(fixture.ref, await getPayment(ctx, merchant, paymentId));
}

async function subscriptionFixture(ctx: AppContext, merchant: Merchant, fixture: SubscriptionFixture): Promise<Subscription> {
  const created = await createSubscription(ctx, merchant, {
    name: fixture.name ?? `Fixture ${fixture.ref}`,
    email: fixture.email ?? DEMO_PAYER_EMAIL,
    max_amount: fixture.max_amount ?? MAX_AMOUNT,
    currency: fixture.currency ?? 'CLP',
    notify_url: fixture.notify_url ?? merchant.notifyUrl ?? `${NO_RECEIVER}/subscription`,
    return_url: `${NO_RECEIVER}/signed`,
    cancel_url: `${NO_RECEIVER}/cancelled`,
  });
  const id = created.subscriptionId;
  switch (fixture.status) {
    case 'created':
      return created;
    case 'signed':
      // DemoBank approves it one bank business day later on the account's clock.
      return signWithDemoBank(ctx, id, PENDING_APPROVAL_RUT, 'pay');
    case 'enabled':
      return signWithDemoBank(ctx, id, DEMO_RUT, 'pay');
    case 'rejected':
      return signWithDemoBank(ctx, id, DEMO_RUT, 'fail');
    case 'revoked':
      await signWithDemoBank(ctx, id, DEMO_RUT, 'pay');
      return decideDemoMandate(ctx, id, 'revoke', merchant);
  }
}

async function chargeFixture(ctx: AppContext, merchant: Merchant, fixture: ChargeFixture, subscriptionId: string): Promise<CreatedCharge> {
  const label = `Fixture ${fixture.ref}`;
  const notifyUrl = fixture.notify_url ?? merchant.notifyUrl ?? `${NO_RECEIVER}/charge`;
  const charge = await createCharge(ctx, merchant, {
    subscription_id: subscriptionId,
    amount: fixture.amount ?? AMOUNT,
    subject: fixture.subject ?? label,
    body: label,
    custom: fixture.ref,
    transaction_id: fixture.transaction_id ?? fixture.ref,
    notify_url: notifyUrl,
    error_response_url: fixture.error_response_url ?? notifyUrl,
  });
  // A due charge is left to the debit job: submitted within seconds, settled on the account's next business day.
  const decided = fixture.status === 'due' ? charge : await decideDemoCharge(ctx, charge.paymentId, fixture.status === 'paid' ? 'settle' : 'fail', merchant);
  return { ...paymentView(fixture.ref, decided), subscription_id: subscriptionId };
}

async function descriptorFixture(ctx: AppContext, merchant: Merchant, fixture: DescriptorFixture): Promise<CreatedDescriptor> {
  const params = { subject: `Fixture ${fixture.ref}`, amount: AMOUNT, currency_code: 'CLP', ...fixture.params };
  const issued = await issueDescriptor(ctx, merchant, { bank: fixture.bank ?? DEMO_BANK_ID, params });
  return { ref: fixture.ref, operation_id: issued.operationId, description: issued.description };
}

/**
 * Creates the fixtures, one after another, on the account's clock: descriptors, payments,
 * subscriptions, then the charges on them. The request was checked as a whole before
 * (domain/sandbox-fixtures.ts fixtureProblems).
 */
export async function createFixtures(given: AppContext, merchant: Merchant, fixtures: SandboxFixtures): Promise<CreatedFixtures> {
  const ctx = forAccount(given, merchant.receiverId);
  const created: CreatedFixtures = { payments: [], subscriptions: [], charges: [], descriptors: [] };
  for (const [index, fixture] of (fixtures.descriptors ?? []).entries())
    created.descriptors.push(await atPath('descriptors', index, () => descriptorFixture(ctx, merchant, fixture)));
  for (const [index, fixture] of (fixtures.payments ?? []).entries())
    created.payments.push(await atPath('payments', index, () => paymentFixture(ctx, merchant, fixture)));
  const subscriptionIds = new Map<string, string>();
  for (const [index, fixture] of (fixtures.subscriptions ?? []).entries()) {
    const subscription = await atPath('subscriptions', index, () => subscriptionFixture(ctx, merchant, fixture));
    subscriptionIds.set(fixture.ref, subscription.subscriptionId);
    created.subscriptions.push({ ref: fixture.ref, subscription_id: subscription.subscriptionId, status: wireStatus(subscription.state) });
  }
  for (const [index, fixture] of (fixtures.charges ?? []).entries())
    created.charges.push(await atPath('charges', index, () => chargeFixture(ctx, merchant, fixture, subscriptionIds.get(fixture.subscription)!)));
  return created;
}
