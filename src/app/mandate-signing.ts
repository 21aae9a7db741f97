// The payer signs a subscription's mandate at their bank, in three steps like a payment attempt:
// pick a bank (one whose connector takes mandates), sign in, answer the bank's challenge. The
// session is claimed (authenticated → signing) before the bank is asked, so a double submit signs
// once, and the bank's answer moves the subscription through change-subscription.ts.
import type { MandateResult, PayerCredentials } from '../bank/connector.js';
import { type Bank, banksFor, findBank } from '../domain/banks.js';
import { DomainError, fieldError, forbidden, notFound, stateError } from '../domain/errors.js';
import { newUuid } from '../domain/ids.js';
import { isSignable } from '../domain/mandate-status.js';
import { isSigningOpen, type MandateSigning, SIGNING_DURATION_MS } from '../domain/mandate-signing.js';
import type { Merchant } from '../domain/merchant.js';
import type { Subscription } from '../domain/subscription.js';
import { findSigning, insertSigning } from '../store/mandate-signings.js';
import { findSubscriptionById } from '../store/subscriptions.js';
import { askBank, NO_ANSWER_IN_TIME } from './ask-bank.js';
import { changeSigning } from './change-signing.js';
import { changeSubscription } from './change-subscription.js';
import type { AppContext } from './context.js';
import { signInAtInstitution } from './institution-sign-in.js';
import { loginFailure } from './bank-login.js';
import { merchantOf } from './merchant-of.js';

export interface SigningView {
  subscription: Subscription;
  merchant: Merchant;
}

export interface SigningSessionView extends SigningView {
  signing: MandateSigning;
}

/** The banks a payer may sign this subscription's mandate at: DemoBank only for developer-mode accounts. */
export function mandateBanks(ctx: AppContext, subscription: Pick<Subscription, 'developer'>): Bank[] {
  return banksFor(subscription.developer).filter((bank) => ctx.banks.mandatesAt(bank.bankId) !== undefined && bank.developerOnly === subscription.developer);
}

export async function getSubscriptionToSign(ctx: AppContext, subscriptionId: string): Promise<SigningView> {
  const subscription = await findSubscriptionById(ctx.db, subscriptionId);
  if (!subscription) throw notFound('Subscription');
  return { subscription, merchant: await merchantOf(ctx, subscription.receiverId) };
}

export async function getSigning(ctx: AppContext, signingId: string): Promise<SigningSessionView> {
  const signing = await findSigning(ctx.db, signingId);
  if (!signing) throw notFound('Signing');
  return { signing, ...(await getSubscriptionToSign(ctx, signing.subscriptionId)) };
}

function checkOpen(signing: MandateSigning, subscription: Subscription, now: Date): void {
  if (!isSigningOpen(signing, now)) throw stateError('This signing session has expired');
  if (!isSignable(subscription.state)) throw stateError('The mandate can no longer be signed');
}

export async function startMandateSigning(ctx: AppContext, subscriptionId: string, bankId: string | undefined): Promise<MandateSigning> {
  const { subscription } = await getSubscriptionToSign(ctx, subscriptionId);
  if (!isSignable(subscription.state)) throw stateError('The mandate can no longer be signed');
  const bank = bankId ? mandateBanks(ctx, subscription).find((b) => b.bankId === bankId) : undefined;
  if (!bank) throw fieldError('bank_id', 'is not a bank that takes this mandate');
  const now = ctx.clock.now().getTime();
  const row = {
    signing_id: newUuid(ctx.random),
    subscription_id: subscriptionId,
    bank_id: bank.bankId,
    state: 'started',
    personal_identifier: null,
    account_number: null,
    payer_name: null,
    failure: null,
    expires_at: now + SIGNING_DURATION_MS,
    created_at: now,
    updated_at: now,
  };
  await insertSigning(ctx.db, row);
  return (await findSigning(ctx.db, row.signing_id))!;
}

export async function signInForMandate(ctx: AppContext, signingId: string, credentials: PayerCredentials): Promise<void> {
  const { signing, subscription } = await getSigning(ctx, signingId);
  checkOpen(signing, subscription, ctx.clock.now());
  if (signing.state !== 'started') throw stateError('The payer already signed in to the bank in this session');
  const login = await signInAtInstitution(ctx, ctx.banks.connectorFor(signing.bankId)!, credentials);
  if (!login.ok) throw loginFailure(login.failure);
  if (!(await changeSigning(ctx, signingId, 'started', { event: 'signed-in', payer: login.account })))
    throw stateError('The payer already signed in to the bank in this session');
}

export type SigningOutcome = 'enabled' | 'signed' | 'rejected';

/** The payer answers the bank's challenge; `signed`: the bank has yet to activate the mandate. */
export async function signMandate(
  ctx: AppContext,
  signingId: string,
  answers: readonly string[],
): Promise<{ outcome: SigningOutcome; subscription: Subscription }> {
  const { signing, subscription, merchant } = await getSigning(ctx, signingId);
  checkOpen(signing, subscription, ctx.clock.now());
  if (signing.state !== 'authenticated') throw stateError('This mandate was already submitted to the bank');
  const connector = ctx.banks.connectorFor(signing.bankId)!;
  if (!connector.acceptsAnswers(answers)) throw fieldError('coordinates', 'must be the two digits of each coordinate asked');
  if (!(await changeSigning(ctx, signingId, 'authenticated', { event: 'claimed' }))) {
    throw stateError('This mandate was already submitted to the bank');
  }
  const order = {
    mandateId: subscription.subscriptionId,
    creditor: merchant.name,
    reference: subscription.serviceReference ?? subscription.subscriptionId,
    maxAmount: subscription.maxAmount,
    currency: subscription.currency,
    payer: { personalIdentifier: signing.personalIdentifier!, accountNumber: signing.accountNumber!, holderName: signing.payerName! },
  };
  const answer: MandateResult | undefined = await askBank(ctx, (call) => connector.mandates!.signMandate(order, answers, call)).then(
    (result) => (result === NO_ANSWER_IN_TIME ? undefined : result),
    (error: unknown) => {
      ctx.log.warn({ err: error, signingId }, 'the bank failed a mandate signature');
      return undefined;
    },
  );
  if (answer === undefined) {
    // Nothing is known to be signed: the payer may answer again; should the bank have signed, its news records it.
    await changeSigning(ctx, signingId, 'signing', { event: 'released' });
    throw new DomainError('unavailable', 'The bank did not answer the signature');
  }
  return applySignature(ctx, signing, answer);
}

async function applySignature(
  ctx: AppContext,
  signing: MandateSigning,
  answer: MandateResult,
): Promise<{ outcome: SigningOutcome; subscription: Subscription }> {
  if (answer.status === 'wrong-answers') {
    await changeSigning(ctx, signing.signingId, 'signing', { event: 'released' });
    // Well-formed but wrong: the payer's pages ask again saying so, unlike coordinates of the wrong form.
    throw forbidden('The bank did not accept these coordinates');
  }
  const id = signing.subscriptionId;
  if (answer.status === 'rejected') {
    await changeSigning(ctx, signing.signingId, 'signing', { event: 'rejected', message: answer.message });
    const subscription = await changeSubscription(ctx, id, { event: 'rejected-by-bank', origin: 'bank', reason: answer.message }, { ifAllowed: true });
    return { outcome: 'rejected', subscription };
  }
  await changeSigning(ctx, signing.signingId, 'signing', { event: 'signed' });
  const payer = { bank_id: signing.bankId, payer_identifier: signing.personalIdentifier, payer_account: signing.accountNumber, payer_name: signing.payerName };
  let subscription = await changeSubscription(
    ctx,
    id,
    {
      event: 'signed',
      origin: 'payer',
      reason: `Signed by ${signing.personalIdentifier} at ${findBank(signing.bankId, true)?.name ?? signing.bankId}`,
      fields: payer,
    },
    { ifAllowed: true },
  );
  if (answer.status === 'active') {
    subscription = await changeSubscription(
      ctx,
      id,
      { event: 'enabled-by-bank', origin: 'bank', reason: 'The bank activated the mandate' },
      { ifAllowed: true },
    );
  }
  return { outcome: subscription.state === 'enabled' ? 'enabled' : 'signed', subscription };
}
