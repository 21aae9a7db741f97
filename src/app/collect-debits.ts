// The background job of charge intents (jobs/jobs.ts): submits the due debits to their mandates'
// banks and asks those banks what became of the debits they hold (on the settlement date they
// gave, or again a minute after a question went unanswered). A debit reaches its bank at most
// once: it is claimed `submitting` in a commit of its own, made durable before the bank hears of
// it (ask-bank.ts); one whose process stopped in between, or whose answer never came, is asked
// about, and submitted again only if its bank says it never received it.
import type { DebitOrder, MandateBank } from '../bank/connector.js';
import { abandonedAfterMs } from '../domain/abandoned-question.js';
import type { Debit, DebitState } from '../domain/debit.js';
import { debitsDue, staleSubmissions } from '../store/debits.js';
import { findPaymentById } from '../store/payment-lookup.js';
import { applyDebitResult } from './apply-debit.js';
import { askBank, askBankToMoveMoney, NO_ANSWER_IN_TIME } from './ask-bank.js';
import { changeDebit } from './change-debit.js';
import { type AppContext, forAccount } from './context.js';

const BATCH = 200;
/** Debits a run has with the banks at once. */
const CONCURRENCY = 16;

function mandateBankOf(ctx: AppContext, debit: Debit): MandateBank {
  const bank = ctx.banks.mandatesAt(debit.bankId);
  if (!bank) throw new Error(`bank ${debit.bankId} of debit ${debit.debitId} takes no debits`);
  return bank;
}

async function orderOf(ctx: AppContext, debit: Debit): Promise<DebitOrder> {
  const payment = await findPaymentById(ctx.db, debit.paymentId);
  return {
    orderId: debit.debitId,
    mandateId: debit.subscriptionId,
    reference: debit.paymentId,
    // A charge's payment is never deleted once submitted (delete-payment.ts); the account is its.
    account: payment?.collectAccountUuid ?? ctx.config.collectionAccount.number,
    destination: ctx.config.collectionAccount,
    amount: debit.amount,
    currency: debit.currency,
  };
}

async function inParallel<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, lane));
}

/** Submits one claimed debit and applies the answer. */
async function submitClaimedDebit(ctx: AppContext, debit: Debit): Promise<void> {
  const bank = mandateBankOf(ctx, debit);
  const order = await orderOf(ctx, debit);
  const result = await askBankToMoveMoney(ctx, { orderId: debit.debitId, bankId: debit.bankId }, (call) => bank.submitDebit(order, call));
  await applyDebitResult(ctx, debit, 'submitting', result);
}

/** Asks the bank about a debit it may hold, and applies the answer. */
export async function askAboutDebit(ctx: AppContext, debit: Debit, from: DebitState): Promise<void> {
  const bank = mandateBankOf(ctx, debit);
  const order = await orderOf(ctx, debit);
  let answer;
  try {
    answer = await askBank(ctx, (call) => bank.debitStatus(order, call));
  } catch (error) {
    ctx.log.warn({ err: error, debitId: debit.debitId }, 'the bank did not say what became of a debit; it is asked again');
    answer = NO_ANSWER_IN_TIME;
  }
  await applyDebitResult(ctx, debit, from, answer === NO_ANSWER_IN_TIME ? { status: 'uncertain' } : answer);
}

/**
 * Claims a due debit (due → submitting) and submits it at once: a claim never waits behind others,
 * so it cannot look stale while unsent. False when another process took it first.
 */
export async function claimAndSubmit(ctx: AppContext, debit: Debit): Promise<boolean> {
  if (!(await changeDebit(ctx, debit, 'due', { event: 'claimed' }))) return false;
  await submitClaimedDebit(ctx, debit);
  return true;
}

/** Returns how many debits were submitted and how many asked about. */
export async function collectDebits(ctx: AppContext): Promise<{ submitted: number; asked: number }> {
  let asked = 0;
  let submitted = 0;
  const time = ctx.clocks.scanTime();
  let failures = 0;
  // Each debit is handled on its account's clock.
  const safely = (work: (ctx: AppContext, debit: Debit) => Promise<void>) => async (debit: Debit) => {
    try {
      await work(forAccount(ctx, debit.receiverId), debit);
    } catch (error) {
      failures++;
      ctx.log.error({ err: error, debitId: debit.debitId }, 'a debit could not be handled; it is tried again at the next run');
    }
  };
  const stale = await staleSubmissions(ctx.db, time, abandonedAfterMs(ctx.config.bankTimeoutMs), BATCH);
  await inParallel(
    stale,
    safely((own, debit) => askAboutDebit(own, debit, 'submitting')),
  );
  asked += stale.length;
  for (const state of ['submitted', 'uncertain'] as const) {
    for (;;) {
      const due = await debitsDue(ctx.db, state, time, BATCH);
      await inParallel(
        due,
        safely((own, debit) => askAboutDebit(own, debit, state)),
      );
      asked += due.length;
      // A debit that could not be handled is still due: asking for the next batch would find it again.
      if (due.length < BATCH || failures > 0) break;
    }
  }
  for (;;) {
    let claimed = 0;
    await inParallel(
      await debitsDue(ctx.db, 'due', time, BATCH),
      safely(async (own, debit) => {
        if (await claimAndSubmit(own, debit)) claimed++;
      }),
    );
    submitted += claimed;
    if (claimed === 0) break;
  }
  return { submitted, asked };
}
