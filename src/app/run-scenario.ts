// Runs one of DemoBank's scenarios (demo-bank-scenarios.ts) for a developer-mode account, as
// `stripe trigger` does: it creates the payment or subscription the scenario needs and drives it
// through the use cases the payer pages, the sandbox and the CLI use, so every row, state change
// and callback is the one a payer or DemoBank would cause. The dashboard's Developer page, POST
// /sandbox/scenarios/{id}/run and `quipu scenarios run` all call runScenario.
//
// The steps are separate use cases, each committed as it is from the pages: a run that fails
// midway leaves what it made so far, as a payer who stops midway would.
import { DEMO_COORDINATES, DEMO_RUT, INSUFFICIENT_FUNDS_RUT, PENDING_APPROVAL_RUT } from '../bank/demo-bank-scenarios.js';
import { forbidden, notFound, stateError } from '../domain/errors.js';
import { wireStatus } from '../domain/mandate-status.js';
import type { Merchant } from '../domain/merchant.js';
import { notifyPolicy, notifyUrlProblem } from '../domain/network-address.js';
import type { Payment } from '../domain/payment.js';
import { standInReceiver } from '../domain/stand-in-receivers.js';
import type { Subscription } from '../domain/subscription.js';
import { findDebitOfPayment } from '../store/debits.js';
import { claimAndSubmit } from './collect-debits.js';
import { type AppContext, forAccount } from './context.js';
import { createCharge } from './create-charge.js';
import { createPayment } from './create-payment.js';
import { createSubscription } from './create-subscription.js';
import { decideDemoCharge, decideDemoMandate } from './demobank-decisions.js';
import { DEMO_PAYER_EMAIL, type DemoBankOutcome, payWithDemoBank } from './pay-with-demobank.js';
import { getPayment } from './payment-queries.js';
import { signWithDemoBank } from './sign-with-demobank.js';

interface RunOutcome {
  /** The payment the run made (transfers, charges): what a caller links to when there is one. */
  payment?: Payment;
  /** The subscription it made (mandates, charges), as it stands after the run; every run makes one or the other. */
  subscription?: Subscription;
}

export interface ScenarioRun extends RunOutcome {
  scenarioId: string;
  /** The payment's status, else the subscription's wire status: done, pending, verifying, ENABLED, SIGNED, DISABLED. */
  outcome: string;
}

interface Run {
  ctx: AppContext;
  merchant: Merchant;
  /** Names what the run creates, so it is recognised in the dashboard's lists. */
  label: string;
}

type Recipe = (run: Run) => Promise<RunOutcome>;

const AMOUNT = 1000;
const MAX_AMOUNT = 5000;
/**
 * Where callbacks go when the account has no notify_url of its own (the automatic payment API
 * requires one): a name that never resolves, so the events page shows the attempts and nothing
 * leaves the machine (domain/stand-in-receivers.ts).
 */
const NO_RECEIVER = standInReceiver('scenarios');

/**
 * The account's notify_url, else the stand-in, unless the installation's rules refuse it (an
 * operator who turned NOTIFY_URL_ACCOUNT_HOSTS on, or named an allowlist, in a sandbox): then the
 * run stops before writing anything and says what the developer can do, instead of a refusal of a
 * URL they never gave.
 */
function callbackUrl({ ctx, merchant }: Run, path: string): string {
  if (merchant.notifyUrl !== null) return merchant.notifyUrl;
  const url = `${NO_RECEIVER}/${path}`;
  const problem = notifyUrlProblem(url, notifyPolicy(merchant, ctx.config));
  if (problem === undefined) return url;
  throw stateError(
    `This scenario sends callbacks and the account has no notify_url, and ${NO_RECEIVER}, where they would go instead, ${problem}. Set the account's notify_url in the dashboard's Settings and run it again`,
  );
}

function transfer(outcome: DemoBankOutcome): Recipe {
  return async ({ ctx, merchant, label }) => {
    const created = await createPayment(ctx, merchant, 'v3', { subject: label, amount: AMOUNT, currency: 'CLP' });
    return { payment: await payWithDemoBank(ctx, created.paymentId, outcome) };
  };
}

/** A subscription whose payer signs its mandate at DemoBank as `rut`, answering the coordinates of `answer`. */
async function signedSubscription(run: Run, rut: string, answer: keyof typeof DEMO_COORDINATES): Promise<Subscription> {
  const { ctx } = run;
  const created = await createSubscription(ctx, run.merchant, {
    name: run.label,
    email: DEMO_PAYER_EMAIL,
    max_amount: MAX_AMOUNT,
    currency: 'CLP',
    notify_url: callbackUrl(run, 'subscription'),
    return_url: `${NO_RECEIVER}/signed`,
    cancel_url: `${NO_RECEIVER}/cancelled`,
  });
  return signWithDemoBank(ctx, created.subscriptionId, rut, answer);
}

const mandate =
  (rut: string, answer: keyof typeof DEMO_COORDINATES): Recipe =>
  async (run) => ({ subscription: await signedSubscription(run, rut, answer) });

function charge(run: Run, subscription: Subscription, amount = AMOUNT): Promise<Payment> {
  return createCharge(run.ctx, run.merchant, {
    subscription_id: subscription.subscriptionId,
    amount,
    subject: run.label,
    body: run.label,
    custom: run.label,
    transaction_id: run.label.replaceAll(' ', '-'),
    notify_url: callbackUrl(run, 'charge'),
    error_response_url: callbackUrl(run, 'charge-error'),
  });
}

/** A charge on a mandate signed by `rut`, then DemoBank's decision on its debit (submitted first). */
const decidedCharge =
  (rut: string, decision: 'settle' | 'fail'): Recipe =>
  async (run) => {
    const subscription = await signedSubscription(run, rut, 'pay');
    const payment = await charge(run, subscription);
    return { subscription, payment: await decideDemoCharge(run.ctx, payment.paymentId, decision, run.merchant) };
  };

const RECIPES: Readonly<Record<string, Recipe>> = {
  'transfer-pays': transfer('pay'),
  'transfer-fails': transfer('fail'),
  'transfer-uncertain': transfer('uncertain'),
  'mandate-enabled': mandate(DEMO_RUT, 'pay'),
  'mandate-rejected': mandate(DEMO_RUT, 'fail'),
  'mandate-pending-approval': mandate(PENDING_APPROVAL_RUT, 'pay'),
  'mandate-revoked': async (run) => {
    const signed = await signedSubscription(run, DEMO_RUT, 'pay');
    return { subscription: await decideDemoMandate(run.ctx, signed.subscriptionId, 'revoke', run.merchant) };
  },
  'charge-settles': decidedCharge(DEMO_RUT, 'settle'),
  // Failed now by DemoBank's fail decision, for want of funds as its settlement day would (a run
  // does not move the account's clock).
  'charge-insufficient-funds': decidedCharge(INSUFFICIENT_FUNDS_RUT, 'fail'),
  'charge-revoked-mandate': async (run) => {
    const signed = await signedSubscription(run, DEMO_RUT, 'pay');
    const payment = await charge(run, signed);
    const subscription = await decideDemoMandate(run.ctx, signed.subscriptionId, 'revoke', run.merchant);
    // Submitted as the debit job submits it: DemoBank refuses a debit under a revoked mandate. Had
    // the job of a running `quipu serve` submitted it first, DemoBank fails it on its settlement
    // day for the same reason, and the run answers it verifying until then.
    await claimAndSubmit(run.ctx, (await findDebitOfPayment(run.ctx.db, payment.paymentId))!);
    return { subscription, payment: await getPayment(run.ctx, run.merchant, payment.paymentId) };
  },
  // createCharge refuses the charge (a validation error naming amount) and writes nothing: that refusal is the run's answer.
  'charge-refused': async (run) => {
    const subscription = await signedSubscription(run, DEMO_RUT, 'pay');
    return { subscription, payment: await charge(run, subscription, MAX_AMOUNT + 1) };
  },
};

/** The scenarios whose expected answer is a refusal (a validation error naming the field): their run ends in it, as it should. */
export const REFUSING_SCENARIOS: readonly string[] = ['charge-refused'];

/** The scenarios that can be run: one recipe for every row of SCENARIOS (a test holds the two tables together). */
export const RUNNABLE_SCENARIOS: readonly string[] = Object.keys(RECIPES);

export async function runScenario(given: AppContext, merchant: Merchant, scenarioId: string): Promise<ScenarioRun> {
  const ctx = forAccount(given, merchant.receiverId);
  const recipe = Object.hasOwn(RECIPES, scenarioId) ? RECIPES[scenarioId] : undefined;
  if (!recipe) throw notFound('Scenario');
  if (!ctx.config.sandbox || !merchant.developer) throw forbidden("DemoBank's scenarios run for developer-mode accounts only, where SANDBOX is on");
  const { payment, subscription } = await recipe({ ctx, merchant, label: `Scenario ${scenarioId}` });
  return { scenarioId, outcome: payment ? payment.status : wireStatus(subscription!.state), payment, subscription };
}
