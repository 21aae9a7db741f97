// A sandbox account's fixtures (domain/sandbox-fixtures.ts) made real: each record is created and
// taken to the state asked for through the use cases a merchant, a payer and DemoBank cause, so its
// rows, history, messages and DemoBank's books are the ones those steps leave. Every fixture's request
// is first checked by the API's own rules, so that one 400 names every refusal by the fixture's
// path; a refusal midway is answered the same way. The caller removes the account it made.
import { DEMO_RUT, PENDING_APPROVAL_RUT } from '../bank/demo-bank-scenarios.js';
import { DEMO_BANK_ID } from '../domain/banks.js';
import { DomainError, type FieldError, FieldErrors, validationError } from '../domain/errors.js';
import type { RawValue } from '../domain/field-rules.js';
import { wireStatus } from '../domain/mandate-status.js';
import type { Merchant } from '../domain/merchant.js';
import { notifyPolicy } from '../domain/network-address.js';
import { parseDescriptorRequest } from '../domain/operation-descriptor.js';
import type { Payment } from '../domain/payment.js';
import { parsePaymentRequest } from '../domain/payment-request.js';
import {
  type ChargeFixture,
  type DescriptorFixture,
  type FixtureKind,
  fixturePath,
  fixturesOf,
  type PaymentFixture,
  type SandboxFixtures,
  type SubscriptionFixture,
} from '../domain/sandbox-fixtures.js';
import type { Subscription } from '../domain/subscription.js';
import { parseChargeRequest, parseSubscriptionRequest, type SubscriptionRequest } from '../domain/subscription-request.js';
import type { Clock } from '../runtime/clock.js';
import { type AppContext, forAccount } from './context.js';
import { createCharge } from './create-charge.js';
import { createPayment, paymentRequestContext } from './create-payment.js';
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

/** A use case's refusal of a fixture: each field it names, under the fixture's path (`fixtures.payments.2.currency`). */
function refusalAt(kind: FixtureKind, index: number, error: DomainError): FieldError[] {
  const path = fixturePath(kind, index);
  return error.fields.length > 0 ? error.fields.map((f) => ({ field: `${path}.${f.field}`, message: f.message })) : [{ field: path, message: error.message }];
}

/** Runs one fixture's steps; a use case's refusal becomes a 400 naming the fixture's path (and its field). */
async function atPath<T>(kind: FixtureKind, index: number, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    throw validationError(refusalAt(kind, index, error), `${fixturePath(kind, index)}: ${error.message}`);
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

/** A payment fixture's request, and the context it is made in: an expired one as it would have been made a day and an hour ago, with a day to be paid. */
function paymentRequest(ctx: AppContext, fixture: PaymentFixture): { at: AppContext; raw: Record<string, RawValue> } {
  const raw: Record<string, RawValue> = {
    amount: fixture.amount ?? AMOUNT,
    currency: fixture.currency ?? 'CLP',
    subject: fixture.subject ?? `Fixture ${fixture.ref}`,
    transaction_id: fixture.transaction_id,
    payer_email: fixture.payer_email,
    notify_url: fixture.notify_url,
  };
  if (fixture.status !== 'expired') return { at: ctx, raw };
  const then = earlier(ctx, EXPIRED_CREATED_AGO_MS);
  return { at: then, raw: { ...raw, expires_date: new Date(then.clock.now().getTime() + DAY_MS).toISOString() } };
}

async function paymentFixture(ctx: AppContext, merchant: Merchant, fixture: PaymentFixture): Promise<CreatedPayment> {
  const { at, raw } = paymentRequest(ctx, fixture);
  const created = await createPayment(at, merchant, 'v3', raw);
  // It expired an hour ago.
  if (fixture.status === 'expired') return paymentView(fixture.ref, created);
  const { paymentId } = created;
  if (fixture.status === 'verifying') await payWithDemoBank(ctx, paymentId, 'uncertain');
  if (fixture.status === 'done' || fixture.status === 'reversed') await payWithDemoBank(ctx, paymentId, 'pay');
  if (fixture.status === 'reversed') await refundPayment(ctx, merchant, paymentId, undefined);
  return paymentView(fixture.ref, await getPayment(ctx, merchant, paymentId));
}

const subscriptionRequest = (merchant: Merchant, fixture: SubscriptionFixture): Record<string, RawValue> => ({
  name: fixture.name ?? `Fixture ${fixture.ref}`,
  email: fixture.email ?? DEMO_PAYER_EMAIL,
  max_amount: fixture.max_amount ?? MAX_AMOUNT,
  currency: fixture.currency ?? 'CLP',
  notify_url: fixture.notify_url ?? merchant.notifyUrl ?? `${NO_RECEIVER}/subscription`,
  return_url: `${NO_RECEIVER}/signed`,
  cancel_url: `${NO_RECEIVER}/cancelled`,
});

async function subscriptionFixture(ctx: AppContext, merchant: Merchant, fixture: SubscriptionFixture): Promise<Subscription> {
  const created = await createSubscription(ctx, merchant, subscriptionRequest(merchant, fixture));
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

function chargeRequest(merchant: Merchant, fixture: ChargeFixture, subscriptionId: string): Record<string, RawValue> {
  const label = `Fixture ${fixture.ref}`;
  const notifyUrl = fixture.notify_url ?? merchant.notifyUrl ?? `${NO_RECEIVER}/charge`;
  return {
    subscription_id: subscriptionId,
    amount: fixture.amount ?? AMOUNT,
    subject: fixture.subject ?? label,
    body: label,
    custom: fixture.ref,
    transaction_id: fixture.transaction_id ?? fixture.ref,
    notify_url: notifyUrl,
    error_response_url: fixture.error_response_url ?? notifyUrl,
  };
}

async function chargeFixture(ctx: AppContext, merchant: Merchant, fixture: ChargeFixture, subscriptionId: string): Promise<CreatedCharge> {
  const charge = await createCharge(ctx, merchant, chargeRequest(merchant, fixture, subscriptionId));
  // A due charge is left to the debit job: submitted within seconds, settled on the account's next business day.
  const decided = fixture.status === 'due' ? charge : await decideDemoCharge(ctx, charge.paymentId, fixture.status === 'paid' ? 'settle' : 'fail', merchant);
  return { ...paymentView(fixture.ref, decided), subscription_id: subscriptionId };
}

const descriptorRequest = (fixture: DescriptorFixture): Record<string, unknown> => ({
  bank: fixture.bank ?? DEMO_BANK_ID,
  params: { subject: `Fixture ${fixture.ref}`, amount: AMOUNT, currency_code: 'CLP', ...fixture.params },
});

async function descriptorFixture(ctx: AppContext, merchant: Merchant, fixture: DescriptorFixture): Promise<CreatedDescriptor> {
  const issued = await issueDescriptor(ctx, merchant, descriptorRequest(fixture));
  return { ref: fixture.ref, operation_id: issued.operationId, description: issued.description };
}

/**
 * What the API's own rules refuse in each fixture's request, as the use cases will decode it on the
 * account: every refusal, named by the fixture's path. A charge is held to the subscription of the
 * request it names, once that one's own request holds.
 */
function requestProblems(ctx: AppContext, merchant: Merchant, fixtures: SandboxFixtures): FieldError[] {
  const problems: FieldError[] = [];
  const check = <T>(kind: FixtureKind, index: number, parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      problems.push(...refusalAt(kind, index, error));
      return undefined;
    }
  };
  const policy = notifyPolicy(merchant, ctx.config);
  for (const [fixture, index] of fixturesOf(fixtures, 'descriptors')) check('descriptors', index, () => parseDescriptorRequest(descriptorRequest(fixture)));
  for (const [fixture, index] of fixturesOf(fixtures, 'payments')) {
    const { at, raw } = paymentRequest(ctx, fixture);
    check('payments', index, () => parsePaymentRequest('v3', raw, paymentRequestContext(at, merchant)));
  }
  const enabled = new Map<string, SubscriptionRequest>();
  for (const [fixture, index] of fixturesOf(fixtures, 'subscriptions')) {
    const request = check('subscriptions', index, () => parseSubscriptionRequest(subscriptionRequest(merchant, fixture), policy));
    if (request && fixture.status === 'enabled') enabled.set(fixture.ref, request);
  }
  for (const [fixture, index] of fixturesOf(fixtures, 'charges')) {
    const mandate = enabled.get(fixture.subscription);
    if (mandate)
      check('charges', index, () =>
        parseChargeRequest(
          chargeRequest(merchant, fixture, fixture.subscription),
          { state: 'enabled', currency: mandate.currency, maxAmount: mandate.maxAmount },
          policy,
        ),
      );
  }
  return problems;
}

/**
 * Creates the fixtures, one after another, on the account's clock: descriptors, payments,
 * subscriptions, then the charges on them. Nothing is made unless every fixture's request holds:
 * a 400 names each refusal with `found`, the request's problems as a whole (domain/sandbox-fixtures.ts
 * fixtureProblems) and the schema's.
 */
export async function createFixtures(
  given: AppContext,
  merchant: Merchant,
  fixtures: SandboxFixtures,
  found: readonly FieldError[] = [],
): Promise<CreatedFixtures> {
  const ctx = forAccount(given, merchant.receiverId);
  const problems = new FieldErrors(found);
  for (const problem of requestProblems(ctx, merchant, fixtures)) problems.add(problem.field, problem.message);
  problems.throwIfAny();
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
